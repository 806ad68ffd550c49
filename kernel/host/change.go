package host

import (
	"context"
	"errors"

	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Preview asks the plugin owning a capability for the change set one call
// would make, changing nothing. It returns an error wrapping
// sdk.ErrNotImplemented when the plugin does not answer Preview.
func (s *Supervisor) Preview(ctx context.Context, call *sdk.Call, maxOutput int64) (*sdk.Result, PluginRef, error) {
	name := PluginFor(call.Capability)
	inst, err := s.get(ctx, name)
	if err != nil {
		return nil, PluginRef{}, err
	}
	s.deliver(call)
	res, err := inst.rpc.Preview(ctx, call, maxOutput)
	if err != nil {
		if errors.Is(err, sdk.ErrNotImplemented) {
			return nil, inst.ref(), err
		}
		s.discard(name, inst)
		return nil, inst.ref(), s.scrubError(s.invokeError(ctx, name, inst, err))
	}
	s.scrubResult(res)
	return res, inst.ref(), nil
}

// Recover asks the plugin owning a capability to settle what a crash left
// begun under call.Context.RunID. It returns an error wrapping
// sdk.ErrNotImplemented when the plugin does not answer Recover.
func (s *Supervisor) Recover(ctx context.Context, call *sdk.Call) (*sdk.Result, PluginRef, error) {
	name := PluginFor(call.Capability)
	inst, err := s.get(ctx, name)
	if err != nil {
		return nil, PluginRef{}, err
	}
	s.deliver(call)
	res, err := inst.rpc.Recover(ctx, call)
	if err != nil {
		if errors.Is(err, sdk.ErrNotImplemented) {
			return nil, inst.ref(), err
		}
		s.discard(name, inst)
		return nil, inst.ref(), s.scrubError(s.invokeError(ctx, name, inst, err))
	}
	if res.DiscardWorker {
		s.discard(name, inst)
	}
	s.scrubResult(res)
	return res, inst.ref(), nil
}
