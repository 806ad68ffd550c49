package readmodel

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
)

// Peek reads a project's open runs and the requests they wait on without
// opening the project: no state is created or repaired, no key is made, no
// plugin starts and nothing is written (journal.OpenReadOnly). Shell
// completion reads through it.
type Peek struct {
	j *journal.Journal
}

// OpenPeek opens the run records under projectDir to read them only. A
// project with no records yet is fs.ErrNotExist.
func OpenPeek(projectDir string) (*Peek, error) {
	j, err := journal.OpenReadOnly(projectDir)
	if err != nil {
		return nil, err
	}
	return &Peek{j: j}, nil
}

// OpenRuns lists the root runs that have not sealed, oldest first.
func (p *Peek) OpenRuns(ctx context.Context) ([]OpenRun, error) {
	return OpenRuns(ctx, p.j)
}

// Waiting lists the open requests a run (its children's included,
// addressed from it) waits on, each with its request digest.
func (p *Peek) Waiting(ctx context.Context, runID string) ([]contract.Request, error) {
	var waiting []Waiting
	if err := (&Reader{Journal: p.j}).CollectWaiting(ctx, runID, "", &waiting); err != nil {
		return nil, err
	}
	out := make([]contract.Request, 0, len(waiting))
	for _, w := range waiting {
		out = append(out, w.Request)
	}
	return out, nil
}

// Close closes the records.
func (p *Peek) Close() error { return p.j.Close() }
