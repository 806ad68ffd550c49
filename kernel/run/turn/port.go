package turn

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/runstate"
)

// Engine is what a turn's calls need of the run engine: the port the
// engine satisfies (kernel/run/turnport.go), so this package never imports
// it.
type Engine interface {
	// Journal is the record the runs are read from and written to.
	Journal() *journal.Journal
	// Waiting is the request a root run's tree waits on at address from
	// the root, with the run that asks it, or nil when none is open there.
	Waiting(ctx context.Context, rootID, address string) (*Waiting, error)
	// LoadOptions are how the engine loads a package.
	LoadOptions() pkg.LoadOptions
	// Reuse is a call's reuse option, refused where it does not parse or
	// the call is not a skill call (skill false).
	Reuse(req CallRequest, skill bool) (*runstate.ReuseOption, error)
	// Ask opens a call that asks a person at <turn>/<index> (ask_human,
	// or a load waiting on the person's trust): its request joins what
	// the run waits on.
	Ask(ctx context.Context, t *Open, c Claimed, a Asked) (*CallResult, error)
	// Collect settles a pending ask_human call from the person's recorded
	// decision, or reports it pending while none is.
	Collect(ctx context.Context, t *Open, p Pending) (*CallResult, error)
	// BindLoad binds the package a load names under the run's authority,
	// or says why not (the refusal).
	BindLoad(ctx context.Context, t *Open, ref string) (*pkg.Package, *contract.ErrorBody, error)
	// SettleCall seals a call that ran no unit (a load) at <turn>/<n>
	// with its receipt and records it; a call made again after a
	// person's decision uses that decision.
	SettleCall(ctx context.Context, t *Open, c Claimed, kind pkg.StepKind, status contract.StepStatus, output any, failure *contract.ErrorBody) (*CallResult, error)
	// Carry runs the call as a unit of the turn's run at <turn>/<n>, under
	// the authority and floor of step, and records it.
	Carry(ctx context.Context, t *Open, step *pkg.Step, c Claimed) (*CallResult, error)
}

// Waiting is an open request of a run's tree: the run that asks it and its
// address in that run.
type Waiting struct {
	RunID, Local string
	Request      *journal.Request
}

// Claimed is a call admitted and claimed its index, as the engine carries
// it out.
type Claimed struct {
	Req   CallRequest
	Index int
	// In is the call's input decoded, Input as the host sent it (trimmed,
	// {} when empty), Digest its digest.
	In     map[string]any
	Input  json.RawMessage
	Digest string
	Reuse  *runstate.ReuseOption
	// Again says the call makes again a call the floor stopped, to run it
	// once a person decided or report it still waiting.
	Again bool
	// SkillOrdinal is a skill call's place among its turn's skill calls
	// (max_fanout), 0 for a call that starts no child.
	SkillOrdinal int
}

// Asked is what a call asks a person: the request's kind and payload.
// Floor marks a call that, made again once the person decided, carries
// on (a load), rather than returning the answer (ask_human).
type Asked struct {
	Kind    contract.RequestKind
	Payload map[string]any
	Floor   bool
}
