package connector

import (
	"context"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Run is what connectors and money need of the run a call belongs to: the
// port the engine satisfies.
type Run interface {
	// Limits are the authority's limits in force for step.
	Limits(step *pkg.Step) authority.Limits
	// Definition is the description of the capability step calls, or nil
	// for a step that calls none (a module, a command, a gate).
	Definition(ctx context.Context, step *pkg.Step) *sdk.Definition
	// CallName is how the run names the call step makes.
	CallName(step *pkg.Step) string
	// Address is a unit's address from the root.
	Address(local string) string
	// Actor is who the run acts as.
	Actor() string

	// RunID is the run's id.
	RunID() string
	// Now is the kernel's clock.
	Now() time.Time
	// Hook marks a point a test may wait on.
	Hook(point string)
	// Execute dispatches one unit of step at local, as any operation call
	// is (a write's attempt, a readback).
	Execute(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, body *receipt.Body) (any, *contract.ErrorBody, contract.StepStatus)
	// Decision is the person's decision the run holds for a request at
	// local address, or nil.
	Decision(local string) *journal.Decision
	// BindRequest binds a request the run will wait on at local.
	BindRequest(step *pkg.Step, local string, kind contract.RequestKind, payload map[string]any) (contract.Request, error)
	// Answer is a connector request's answer held to the operation's
	// declared outputs.
	Answer(stepID string, mo *ManifestOp, raw []byte) (any, *contract.ErrorBody)
}
