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
