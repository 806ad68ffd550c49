// Package turn holds an agent turn's side of a run: the open turn as its
// record reads (Open), the calls a turn offers and makes (CallRequest,
// Make), ask_human, a call's cancel, a turn's failure and what a managed
// agent states about the turn it answered.
//
// It sits below the run engine: it never imports kernel/run. What a call
// needs of the run it belongs to (reading the turn, running the call as a
// unit of its run, asking a person) is the Engine port this package
// declares, which the engine satisfies (kernel/run/turnport.go). What it
// reads and writes of a run's record it reads and writes through
// kernel/journal.
package turn
