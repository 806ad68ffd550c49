package run

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/native"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// commandDispatch dispatches a process tool to the capability with role
// command (native.PrepareProcess says what it is sent), reading its answer
// back through native.InterpretProcess.
func (rc *runCtx) commandDispatch(ctx context.Context, step *pkg.Step, inputs map[string]any) (*dispatch, error) {
	e := rc.e
	capability, err := e.roleCapability(ctx, sdk.RoleCommand)
	if err != nil {
		return nil, err
	}
	p, err := native.PrepareProcess(step, rc.pkg.Dir, e.LookupEnv, inputs, stepTimeout(step, native.ProcessDefaultTimeout))
	if err != nil {
		return nil, err
	}
	started := e.Clock()
	return &dispatch{
		capability:  capability,
		commandRole: true,
		execution:   execTrustedHost,
		input:       p.Input,
		timeout:     p.Timeout + native.ProcessHostGrace,
		maxOutput:   native.ProcessMaxAnswer,
		interpret: func(raw []byte, body *receipt.Body) (any, *contract.ErrorBody) {
			return native.InterpretProcess(step.ID, raw, p.ArgvDigest, e.Clock().Sub(started), body)
		},
	}, nil
}
