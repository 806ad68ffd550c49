package script

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
)

// Run is what a script's record needs of the run that drives it; the
// engine satisfies it (kernel/run/scriptport.go).
type Run interface {
	// Settled reads one journal record of a settled request as the engine
	// reads any step's: its status, its failure, and the receipt it
	// committed (nil when none).
	Settled(rec *journal.Step) (contract.StepStatus, *contract.ErrorBody, *receipt.ChildRef, error)
}

// Journal is the part of the run's journal a script's record reads and
// writes.
type Journal interface {
	Steps(ctx context.Context, runID string) (map[string]*journal.Step, error)
	StepsAt(ctx context.Context, runID string, addresses []string) (map[string]*journal.Step, error)
	RecordStep(ctx context.Context, s *journal.Step) error
}
