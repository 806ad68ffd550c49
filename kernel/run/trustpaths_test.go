package run

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/sdk/errcode"
)

// TestUnreadableRecordsAreRefusals: a recorded step that does not decode
// is a typed error, never read as an empty output (a recorded authority or
// decision: kernel/run/gate's test of the same name).
func TestUnreadableRecordsAreRefusals(t *testing.T) {
	for name, rec := range map[string]*journal.Step{
		"output":     {StepID: "s", Status: contract.StepSuccess, Output: json.RawMessage(`{"a":`)},
		"error":      {StepID: "s", Status: contract.StepFailed, Error: json.RawMessage(`[1]`)},
		"commitment": {StepID: "s", Status: contract.StepSuccess, ChildRef: json.RawMessage(`"x"`)},
	} {
		if _, err := settledOf(rec); contract.CodeOf(err) != errcode.JournalRecordInvalid {
			t.Errorf("settledOf with a bad %s: %v", name, err)
		}
	}
}
