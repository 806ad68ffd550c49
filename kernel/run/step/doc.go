// Package step holds the run's step runner below the engine: how a call
// that may act is claimed before it leaves and what a driver does with a
// claim no outcome settles (the <step>/retry a person decides), a step's
// retry of failed attempts and the waits between them, and the bound on
// what the plugins of one run's tree answer.
//
// It never imports kernel/run: what it needs of the run a unit belongs to
// it takes as runstate parts, or through Run, the port the engine
// satisfies (kernel/run/stepport.go).
package step
