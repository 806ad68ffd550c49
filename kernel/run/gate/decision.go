package gate

import (
	"encoding/json"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/sdk/errcode"
)

// Approval is an approval decision as recorded.
type Approval struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason"`
}

// DecisionValue reads a recorded approval decision. One that does not
// decode stops the run: read as empty it would be a decline nobody made.
func DecisionValue(d *journal.Decision) (Approval, error) {
	var v Approval
	if err := json.Unmarshal(d.Value, &v); err != nil {
		return v, contract.Errorf(errcode.JournalRecordInvalid, "the journal's decision for %s does not decode: %v", d.Address, err)
	}
	return v, nil
}

// ShellQuote is an argv as one line a person reads on a gate: each
// argument quoted unless it is plain.
func ShellQuote(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}
