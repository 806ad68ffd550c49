// Package reuse is a skill call's reuse below the run engine: the option a
// call asks it with ({max_age_seconds}), the rule by which each step of an
// earlier sealed run may stand again (Classify), the closed vocabulary of
// why a call recomputed, and the decision itself (Decide): the newest
// sealed run under the same resolved inputs and child context, young
// enough, whose every step stands.
//
// It never imports kernel/run: what it reads of the calling run is the Run
// port this package declares, which the engine satisfies
// (kernel/run/reuseport.go).
package reuse
