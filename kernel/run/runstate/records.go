package runstate

import (
	"sync"

	"github.com/runxhq/runx/kernel/journal"
)

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

	// The lock guards Recorded and Outputs while a fan-out's items run at
	// once.
	sync.Mutex
}

// RecordedAt is the unit the journal holds as settled at local, or nil.
func (r *Records) RecordedAt(local string) *journal.Step {
	r.Lock()
	defer r.Unlock()
	return r.Recorded[local]
}

// OutputsNow is a copy of the settled steps' outputs as they stand, for a
// fan-out item's references.
func (r *Records) OutputsNow() map[string]any {
	r.Lock()
	defer r.Unlock()
	out := make(map[string]any, len(r.Outputs))
	for k, v := range r.Outputs {
		out[k] = v
	}
	return out
}
