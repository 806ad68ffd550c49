package agent

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// eventDrive records that a person gave --drive for a run: who drives it
// and under which budget.
const eventDrive = "agent.drive"

// recordDrive records this drive in the run's agent stream.
func (d *Driver) recordDrive(ctx context.Context, runID string) error {
	return d.Kernel.RecordEvent(ctx, runID, eventStream, eventDrive, map[string]any{
		"provider": d.Provider.Name, "model": d.Provider.Model, "dialect": d.Provider.Dialect, "budget": d.Budget})
}

// RefuseHosted refuses to serve a run's turns to a host (runx mcp --run)
// when the run was started or resumed with --drive: its turns are the
// managed agent's.
func RefuseHosted(ctx context.Context, k *run.Kernel, runID string) error {
	events, err := k.RunEvents(ctx, runID, 0)
	if err != nil {
		return nil // an unknown run is the server's to report
	}
	for _, ev := range events {
		if ev.Stream == eventStream && ev.Type == eventDrive {
			return contract.Errorf(errcode.RunManaged, "run %s is driven by the managed agent (--drive); continue it with runx resume %s --drive, or answer it with runx resume", runID, runID)
		}
	}
	return nil
}
