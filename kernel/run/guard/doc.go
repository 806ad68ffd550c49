// Package guard holds a step's `when:` below the run engine: a guard
// compiled and type-checked once (Compile, at preparation), evaluated over
// the run's input, its steps' outputs and run {id, act} (Eval), and the
// proof from syntax alone that two guards never both hold (Exclusive),
// which lets two steps of one method write the same output key.
//
// It never imports kernel/run; it takes the values a guard reads.
package guard
