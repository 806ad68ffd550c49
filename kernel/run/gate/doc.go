// Package gate holds the authority in force and the decisions the run's
// gates make from it: the authority a run record holds and its digest, the
// authority one step runs under, what a step would change for the floor,
// what of a stated authority this runx can enforce, an operation call's
// packages and delegations, a step's child-run limits, the reach a call's
// paths are held to and what each call is told of its run (calls.go),
// what a child run is started under (child.go), what a gate asks and its
// binding by digest (ask.go) and a person's recorded approval.
//
// It sits below the run engine: it never imports kernel/run. What a
// decision needs of the run (a capability's description) it takes as the
// Capabilities port this package declares, which the engine satisfies
// (kernel/run/gateport.go). The decisions are pure over their values and
// that port; the engine keeps the I/O (asking, recording, settling).
package gate
