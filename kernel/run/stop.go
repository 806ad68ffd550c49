package run

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// EventStepStopped records a unit a stop request interrupted, with the
// decision stopped.
const EventStepStopped = "step.stopped"

// canceller is the part of the plugin host that cancels one call in flight.
type canceller interface {
	Cancel(ctx context.Context, capability, callID string) (string, error)
}

// stopWatch terminates a process a step has in flight when the run is asked
// to stop (SIGTERM): a process runs on its own, so unlike a file change it
// is not left to run to its end. It asks the owning plugin to cancel the
// call by its id, which terminates the process group after a short grace
// and answers how the process ended. A host's call_cancel of one call is
// not a stop of the run: there an effect in flight runs to its end and
// settles as it ended, so a context cancelled with ErrCallCancelled sends
// nothing. The returned function ends the watch and reports whether a stop
// was sent.
func (rc *runCtx) stopWatch(ctx context.Context, def *sdk.Definition, capability, callID string) func() bool {
	var sent atomic.Bool
	if def == nil || def.Effect != sdk.EffectProcess {
		return sent.Load
	}
	c, ok := rc.e.Host.(canceller)
	if !ok {
		return sent.Load
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), ErrCallCancelled) {
				return
			}
			sent.Store(true)
			_, _ = c.Cancel(durable(ctx), capability, callID)
		case <-done:
		}
	}()
	return func() bool {
		close(done)
		return sent.Load()
	}
}

// wasStopped reports whether a process capability's answer says its process
// was stopped, rather than having ended on its own just as the stop came.
func wasStopped(output []byte) bool {
	var ans struct {
		Stopped bool `json:"stopped"`
	}
	return json.Unmarshal(output, &ans) == nil && ans.Stopped
}

// stopping reports whether the run is being stopped (SIGTERM, an
// interrupt, an MCP cancel of the run), as against a host's call_cancel
// of one call, which keeps its own rule.
func stopping(ctx context.Context) bool {
	return ctx.Err() != nil && !errors.Is(context.Cause(ctx), ErrCallCancelled)
}

// stoppedBeforeStart is the error of a start its run's stop cut short
// before the first step: a refusal then (a plugin that could not start
// any more, a store closed under the check) is the stop's, not the
// package's, so nothing is sealed, nothing ran and the start can be made
// again.
func stoppedBeforeStart(cause error) error {
	return contract.Errorf(errcode.Interrupted, "the run was stopped before its first step (%s); nothing ran and nothing was recorded, so start it again", contract.CodeOf(cause))
}

// recordStopped notes in the run's record that a stop interrupted the unit
// at local, with the decision stopped; the unit stays unsettled.
func (rc *runCtx) recordStopped(ctx context.Context, step *pkg.Step, local string, failure *contract.ErrorBody) error {
	return rc.e.Journal.AppendEvent(durable(ctx), rc.rec.RunID, "steps", EventStepStopped, map[string]any{
		"address": local, "step_id": step.ID, "decision": "stopped", "error": failure,
	})
}

// cancelWatch stops a read in flight when its host cancels the call
// (call_cancel): the owning plugin is asked to cancel it by its id (the
// Cancel RPC, which cancels a read's context in the plugin) and the call's
// own context ends. A call that may change something is left to run to its
// end, so its record says what it did. The returned function ends the
// watch and reports whether it stopped the read.
func (rc *runCtx) cancelWatch(ctx, callCtx context.Context, cancel context.CancelFunc, def *sdk.Definition, capability, callID string) func() bool {
	var sent atomic.Bool
	if def == nil || (def.Effect != sdk.EffectRead && def.Effect != sdk.EffectNone) || def.HasRole(sdk.RoleDataOperation) {
		return sent.Load
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			if !errors.Is(context.Cause(ctx), ErrCallCancelled) {
				return
			}
			sent.Store(true)
			if c, ok := rc.e.Host.(canceller); ok {
				_, _ = c.Cancel(durable(ctx), capability, callID)
			}
			cancel()
		case <-done:
		case <-callCtx.Done():
		}
	}()
	return func() bool {
		close(done)
		return sent.Load()
	}
}
