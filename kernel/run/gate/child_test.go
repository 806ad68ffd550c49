package gate

import (
	"testing"

	"github.com/runxhq/runx/kernel/authority"
)

// TestChildContext names one computation: two children started under the
// same authority, standing approvals, act and actor share the digest, and
// a change in any of them is another context.
func TestChildContext(t *testing.T) {
	eff := authority.Effective{Effects: authority.EffectsAsk, Reach: authority.ReachWorkspace}
	standing := []authority.StandingApproval{{Local: true}}
	base, err := ChildContext(nil, eff, standing, "act", "me")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := ChildContext(HostAuthority, eff, standing, "act", "me"); again != base {
		t.Fatalf("no stated authority, recorded as none or as the host's default: %s != %s", again, base)
	}
	for name, other := range map[string][]any{
		"act":      {eff, standing, "other act", "me"},
		"actor":    {eff, standing, "act", "someone"},
		"standing": {eff, []authority.StandingApproval(nil), "act", "me"},
		"reach":    {authority.Effective{Effects: authority.EffectsAsk, Reach: authority.ReachInputs}, standing, "act", "me"},
	} {
		d, err := ChildContext(nil, other[0].(authority.Effective), other[1].([]authority.StandingApproval), other[2].(string), other[3].(string))
		if err != nil || d == base {
			t.Errorf("another %s is the same context (%v)", name, err)
		}
	}
}
