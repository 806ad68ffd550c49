package runstate

import "github.com/runxhq/runx/kernel/journal"

// Records are the journal records a run reads and writes through while it
// is driven, held in memory for the drive.
type Records struct {
	// Answers are agent answers a resume brought, by address from the
	// root: held in memory and recorded only when the step that uses them
	// accepts them, so an answer its step refuses is never the run's.
	Answers map[string]*journal.Decision
	// Recorded are the units the journal holds as settled, by local
	// address, and Decisions the person's decisions it holds, by address:
	// both read at the start of a drive.
	Recorded  map[string]*journal.Step
	Decisions map[string]*journal.Decision
	// Outputs are the outputs of the run's settled steps, by step id, as
	// later steps' references read them.
	Outputs map[string]any
}
