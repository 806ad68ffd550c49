package run

import (
	"context"

	"github.com/runxhq/runx/kernel/run/native"
	runstep "github.com/runxhq/runx/kernel/run/step"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// effectFree reports whether every step of the run's method is one that
// changes nothing and never waits: a module step, or a plugin capability
// whose description declares no effect or only reading (not a data
// operation, not a native tool). Such a run, cut short before its seal,
// loses nothing an operator relies on: it is run again. Its journal
// transitions before the seal are deferred to the seal's fsync; its
// receipts are put as every run's are, durable before the answer.
func (rc *runCtx) effectFree(ctx context.Context) bool {
	return runstep.EffectFreeSteps(rc.method.Steps,
		func(id string) bool { return native.Lookup(id) != nil },
		func(id string) *sdk.Definition { return definitionOf(ctx, rc.e.Host, id) })
}
