package run

import (
	"testing"

	"github.com/runxhq/runx/kernel/contract/seal"
)

// TestChildOutcomeCodes: a child that seals other than completed with no
// error of its own fails its parent's step with child_<outcome>, a
// registered code, for every outcome a run can seal with.
func TestChildOutcomeCodes(t *testing.T) {
	for _, o := range seal.Outcomes {
		code, ok := childOutcomeCode[o]
		switch o {
		case seal.OutcomeCompleted, seal.OutcomeSkipped:
			if ok {
				t.Errorf("%s has a failure code %s", o, code)
			}
			continue
		}
		if !ok {
			t.Errorf("no code for a child sealed %s", o)
		} else if string(code) != "child_"+string(o) {
			t.Errorf("child sealed %s: code %s, want child_%s", o, code, o)
		}
	}
}
