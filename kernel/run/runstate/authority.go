package runstate

import "github.com/runxhq/runx/kernel/authority"

// Authority is the authority in force for a run.
type Authority struct {
	// Base is the authority this run holds: its host's, or for a child run
	// what the step that started it held; Standing are the person's
	// standing approvals in force.
	Base     authority.Effective
	Standing []authority.StandingApproval
}

// StandingNames names the standing approvals a floor decision was admitted
// by (idx, as authority.Floor gives them) for the step's receipt: each by
// its index among those in force and its kind.
func (a Authority) StandingNames(idx []int) []map[string]any {
	out := make([]map[string]any, 0, len(idx))
	for _, i := range idx {
		if i >= 0 && i < len(a.Standing) {
			out = append(out, map[string]any{"index": i, "kind": a.Standing[i].Kind()})
		}
	}
	return out
}
