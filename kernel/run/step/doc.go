// Package step holds the run's step runner below the engine: a unit's
// result (Result, Settled, Pending) and how it settles (its receipt sealed,
// stored and recorded, or its record left to a fan-out's batch or to the
// seal's transaction), a fan-out settled over its items, how a call that
// may act is claimed before it leaves and what a driver does with a claim
// no outcome settles (the <step>/retry a person decides), a step's retry of
// failed attempts and the waits between them, the bound on what the
// plugins of one run's tree answer, and the progress a run reports.
//
// It never imports kernel/run or another concern beside it: what it needs
// of the run a unit belongs to it takes as Run, which the engine hands it
// (runCtx.runner, kernel/run/stepport.go): the run's record, its place in
// the tree (a runstate part), what its receipts name and where they are
// sealed. A wait it opens comes back unbound, for the engine to bind.
package step
