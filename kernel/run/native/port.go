package native

import (
	"context"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
)

// Run is what a kernel-owned tool reads of the run that calls it. The
// engine satisfies it (kernel/run/nativeport.go), so this package never
// imports the engine.
type Run interface {
	// RunID names the calling run, ParentRunID the run that started it
	// ("" for a root).
	RunID() string
	ParentRunID() string
	// Reach is the reach step runs under, by the authority in force.
	Reach(step *pkg.Step) authority.Reach
	// Now reads the kernel's clock, which every receipt's times are taken
	// from (fixed under runx test).
	Now() time.Time
	// ReadRun is a run's read model (runx.run_read.v1) with its events
	// after the cursor.
	ReadRun(ctx context.Context, runID, after string) (any, error)
	// Records are the project's run records and receipts.
	Records() *Records
}

// Call is what a kernel-owned tool is told about its call.
type Call struct {
	Run  Run
	Step *pkg.Step
}
