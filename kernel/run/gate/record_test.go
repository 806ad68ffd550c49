package gate

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/sdk/errcode"
)

// TestUnreadableRecordsAreRefusals: a recorded authority or decision that
// does not decode is a typed error, never read as "none stated" or a
// decline.
func TestUnreadableRecordsAreRefusals(t *testing.T) {
	if _, err := Recorded(json.RawMessage(`{"effects":"sometimes"}`)); contract.CodeOf(err) != errcode.AuthorityRecordInvalid {
		t.Errorf("Recorded: %v", err)
	}
	if _, err := Digest(json.RawMessage(`{"effects":`)); contract.CodeOf(err) != errcode.AuthorityRecordInvalid {
		t.Errorf("Digest: %v", err)
	}
	if a, err := Recorded(HostAuthority); a != nil || err != nil {
		t.Errorf("the host default reads as none stated: %v %v", a, err)
	}
	if _, err := DecisionValue(&journal.Decision{Address: "post", Value: json.RawMessage(`{"approved":"yes"}`)}); contract.CodeOf(err) != errcode.JournalRecordInvalid {
		t.Errorf("DecisionValue: %v", err)
	}
	if v, err := DecisionValue(&journal.Decision{Address: "post", Value: json.RawMessage(`{"approved":true,"reason":"ok"}`)}); err != nil || !v.Approved {
		t.Errorf("a good decision: %+v %v", v, err)
	}
}
