package run

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
)

// TestUnreadableRecordsAreRefusals: a recorded authority, step or decision
// that does not decode is a typed error, never read as "none stated", an
// empty output or a decline.
func TestUnreadableRecordsAreRefusals(t *testing.T) {
	if _, err := recordedAuthority(json.RawMessage(`{"effects":"sometimes"}`)); contract.CodeOf(err) != CodeAuthorityRecordInvalid {
		t.Errorf("recordedAuthority: %v", err)
	}
	if _, err := authorityDigest(json.RawMessage(`{"effects":`)); contract.CodeOf(err) != CodeAuthorityRecordInvalid {
		t.Errorf("authorityDigest: %v", err)
	}
	if a, err := recordedAuthority(hostAuthority); a != nil || err != nil {
		t.Errorf("the host default reads as none stated: %v %v", a, err)
	}
	for name, rec := range map[string]*journal.Step{
		"output":     {StepID: "s", Status: contract.StepSuccess, Output: json.RawMessage(`{"a":`)},
		"error":      {StepID: "s", Status: contract.StepFailed, Error: json.RawMessage(`[1]`)},
		"commitment": {StepID: "s", Status: contract.StepSuccess, ChildRef: json.RawMessage(`"x"`)},
	} {
		if _, err := settledOf(rec); contract.CodeOf(err) != CodeJournalRecordInvalid {
			t.Errorf("settledOf with a bad %s: %v", name, err)
		}
	}
	if _, err := decisionValue(&journal.Decision{Address: "post", Value: json.RawMessage(`{"approved":"yes"}`)}); contract.CodeOf(err) != CodeJournalRecordInvalid {
		t.Errorf("decisionValue: %v", err)
	}
	if v, err := decisionValue(&journal.Decision{Address: "post", Value: json.RawMessage(`{"approved":true,"reason":"ok"}`)}); err != nil || !v.Approved {
		t.Errorf("a good decision: %+v %v", v, err)
	}
}
