package run

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/reuse"
	"github.com/runxhq/runx/kernel/run/script"
	"github.com/runxhq/runx/kernel/run/turn"
	"github.com/runxhq/runx/sdk/errcode"
)

// A turn's calls are kernel/run/turn's (turn.Make); these are their names
// at the front door.
type (
	TurnCallRequest = turn.CallRequest
	TurnCallResult  = turn.CallResult
	TurnCallRecord  = turn.CallRecord
	TurnCallable    = turn.Callable
	CallableKind    = turn.CallableKind
	CallCancel      = turn.CallCancel
	AgentStatement  = turn.AgentStatement
)

// Codes, statuses and events of a turn's calls (kernel/run/turn).
const (
	AskHuman          = turn.AskHuman
	EventAgentTurn    = turn.EventAgentTurn
	CallableTool      = turn.CallableTool
	CallableOperation = turn.CallableOperation
	CallableSkill     = turn.CallableSkill
	CallableAskHuman  = turn.CallableAskHuman
	CallableLoad      = turn.CallableLoad
)

// ErrCallCancelled is the cause a cancelled turn call's context carries.
var ErrCallCancelled = turn.ErrCallCancelled

// TurnCallables lists the calls an agent step offers its turn.
func TurnCallables(step *pkg.Step) []TurnCallable { return turn.Callables(step) }

// WaitTurnCallsIdle blocks until no turn call of the run is executing in
// this process.
func WaitTurnCallsIdle(ctx context.Context, runID string) { turn.WaitIdle(ctx, runID) }

// OpenTurn is an agent turn a run waits on, read from its record
// (kernel/run/turn).
type OpenTurn = turn.Open

// PriorStep is one settled step's output, a context entry of a turn.
type PriorStep = turn.PriorStep

// Turn reads an open agent turn of a root run by its address from the root
// (turn.Read).
func (k *Kernel) Turn(ctx context.Context, rootID, address string) (*OpenTurn, error) {
	return turn.Read(ctx, turnPort{k}, rootID, address)
}

// TurnCall admits and carries out one call of an open turn.
func (k *Kernel) TurnCall(ctx context.Context, req TurnCallRequest) (*TurnCallResult, error) {
	return turn.Make(ctx, turnPort{k}, req)
}

// CancelTurnCall cancels one turn call of a run by its address and answers
// at once with how it stands (turn.Cancel).
func (k *Kernel) CancelTurnCall(ctx context.Context, runID, address string) (*CallCancel, error) {
	return turn.Cancel(ctx, k.journal, runID, address)
}

// turnPort is the engine as a turn's calls see it (turn.Engine).
type turnPort struct{ k *Kernel }

func (p turnPort) Journal() *journal.Journal { return p.k.journal }

func (p turnPort) Waiting(ctx context.Context, rootID, address string) (*turn.Waiting, error) {
	st, err := p.k.engine.treeState(ctx, rootID)
	if err != nil {
		return nil, err
	}
	w, ok := st.open[address]
	if !ok {
		return nil, nil
	}
	return &turn.Waiting{RunID: w.runID, Local: w.local, Request: w.req}, nil
}

func (p turnPort) LoadOptions() pkg.LoadOptions {
	return pkg.LoadOptions{RunxVersion: p.k.Options.RunxVersion}
}

func (p turnPort) Reuse(req TurnCallRequest, skill bool) (*ReuseOption, error) {
	opt, err := reuse.Parse(req.Reuse)
	if err != nil {
		return nil, err
	}
	if opt != nil && !skill {
		return nil, contract.Errorf(errcode.CallReuseUnsupported, "option \"reuse\" of call %s: only a skill call reuses an earlier sealed result; make the call without reuse", req.Tool)
	}
	return opt, nil
}

// Carry runs the call as a unit of the turn's run at <turn>/<n>, under the
// authority and floor of a step, and records it with its call_id.
func (p turnPort) Carry(ctx context.Context, t *OpenTurn, step *pkg.Step, c turn.Claimed) (*TurnCallResult, error) {
	k, req := p.k, c.Req
	rc, err := k.runCtxFor(ctx, t.RunID)
	if err != nil {
		return nil, err
	}
	address := t.Local + "/" + strconv.Itoa(c.Index)
	rc.ChildAct, rc.ChildReuse, rc.TurnCall = req.Act, c.Reuse, true
	var r stepRun
	// A skill call, the SkillOrdinal-th of its turn, is refused where the
	// authority's max_fanout or max_child_depth is lower; a call that is
	// not a skill call (ordinal 0) starts no child.
	var refused error
	if c.SkillOrdinal > 0 {
		refused = gate.ChildLimits(rc.Base, rc.method, step, rc.RunDepth, c.SkillOrdinal)
	}
	if refused != nil {
		r = rc.runner().SettleNow(ctx, step, address, rc.Depth+2, contract.StepRefused, nil, contract.BodyOf(refused), nil)
	} else {
		r = rc.unit(ctx, step, address, c.In, rc.Depth+2)
	}
	if r.Err != nil {
		return nil, r.Err
	}
	out := &TurnCallResult{CallRecord: TurnCallRecord{Index: c.Index, Address: rc.Address(address), CallID: req.CallID, Tool: req.Tool, InputDigest: c.Digest, Reuse: rc.ReuseNote}}
	if r.Settled == nil && r.Stopped {
		// A skill call's child run stopped between steps on a cancel: it
		// stays where it stopped.
		out.Status = contract.CallStopped
		return out, nil
	}
	if r.Settled == nil && step.Kind == pkg.KindSkill {
		return p.keepChildPause(ctx, t, out, r.Waiting, r.Refused, c.Input, req.Act)
	}
	if r.Settled == nil {
		return p.keepPending(ctx, t, out, r.Waiting, c.Again)
	}
	if out, err = rc.recordTurnCall(ctx, t.Local, c.Index, req.Tool, c.Digest, req.CallID, r.Settled); err != nil {
		return nil, err
	}
	if c.Again {
		// It used a person's decision: the turn is still open, and the
		// run waits on what stays open.
		if err := rc.repause(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// keepPending keeps a call the floor stopped as a pending call of its
// turn: its request joins what the run waits on, a person answers it under
// approvals, and the same call made again runs it or settles it declined.
func (p turnPort) keepPending(ctx context.Context, t *OpenTurn, out *TurnCallResult, waiting []pending, again bool) (*TurnCallResult, error) {
	k := p.k
	out.Status = contract.CallPending
	local := t.Local + "/" + strconv.Itoa(out.Index)
	var reqs []*journal.Request
	var digest string
	for _, w := range waiting {
		if w.RunID == t.RunID && w.Local == local {
			digest = w.Request.RequestDigest
			reqs = append(reqs, &journal.Request{Address: local, Kind: w.Request.Kind, RequestDigest: w.Request.RequestDigest, Payload: w.Request.Payload})
		}
	}
	if len(reqs) != 1 || len(waiting) != 1 {
		return nil, fmt.Errorf("turn call %s waits on %d requests, not its own one", out.Address, len(waiting))
	}
	// What the call waits on is shown as a paused run shows it: a payload
	// past 64 KiB as its artifact, kept before the answer names it.
	shown, err := k.engine.presentWaiting(waiting)
	if err != nil {
		return nil, err
	}
	out.Waiting = shown
	if again {
		return out, nil // still waiting: kept as it was
	}
	if err := k.journal.Asks().AddRequests(durable(ctx), t.RunID, reqs); err != nil {
		return nil, err
	}
	pc := turn.Pending{Address: local, Index: out.Index, CallID: out.CallID, Tool: out.Tool, InputDigest: out.InputDigest, RequestDigest: digest, Floor: true}
	if err := k.journal.AppendEvent(durable(ctx), t.RunID, "calls", turn.EventCallPending, pc); err != nil {
		return nil, err
	}
	return out, nil
}

// keepChildPause keeps the pause of a skill call's child: the child's
// requests are recorded in the runs that ask them, addressed from the root
// under the call (answer/0#report), so the host works them through the
// same turn tools; the call stays pending until the child seals, which the
// run's next driver sees to (driveTurnSkillCalls).
func (p turnPort) keepChildPause(ctx context.Context, t *OpenTurn, out *TurnCallResult, waiting []pending, refused []contract.RefusedAnswer, input json.RawMessage, act string) (*TurnCallResult, error) {
	k := p.k
	out.Status = contract.CallPending
	byRun := map[string][]*journal.Request{}
	for _, w := range waiting {
		byRun[w.RunID] = append(byRun[w.RunID], &journal.Request{Address: w.Local, Kind: w.Kind, RequestDigest: w.RequestDigest, Payload: w.Payload})
	}
	if len(refused) > 0 || len(byRun) == 0 {
		return nil, contract.Errorf(errcode.TurnCallChildUnsettled, "skill call %s neither settled nor waits on a request of its child", out.Address)
	}
	shown, err := k.engine.presentWaiting(waiting)
	if err != nil {
		return nil, err
	}
	out.Waiting = shown
	for runID, reqs := range byRun {
		if runID == t.RunID {
			return nil, contract.Errorf(errcode.TurnCallChildUnsettled, "skill call %s waits on its own run, not its child", out.Address)
		}
		if err := k.journal.Pause(durable(ctx), runID, reqs); err != nil {
			return nil, err
		}
	}
	// Every run between a waiting child and the turn's run is paused too;
	// the turn's run already is, on its turn.
	byRun[t.RunID] = nil
	if err := k.engine.pauseAncestors(ctx, byRun); err != nil {
		return nil, err
	}
	pc := turn.Pending{Address: t.Local + "/" + strconv.Itoa(out.Index), Index: out.Index, CallID: out.CallID, Tool: out.Tool, InputDigest: out.InputDigest,
		Skill: true, Input: input, Act: act}
	if err := k.journal.AppendEvent(durable(ctx), t.RunID, "calls", turn.EventCallPending, pc); err != nil {
		return nil, err
	}
	return out, nil
}

// Ask opens an ask_human call at <turn>/<index>: its request joins what
// the run waits on, and a person answers it under approvals with runx
// resume. The same call made again with its call_id collects the answer
// once it is recorded.
func (p turnPort) Ask(ctx context.Context, t *OpenTurn, c turn.Claimed, a turn.Asked) (*TurnCallResult, error) {
	k, kind, payload := p.k, a.Kind, a.Payload
	rc, err := k.runCtxFor(ctx, t.RunID)
	if err != nil {
		return nil, err
	}
	local := t.Local + "/" + strconv.Itoa(c.Index)
	r, err := rc.asked(t.Step, local).Bind(kind, payload)
	if err != nil {
		return nil, err
	}
	if err := k.journal.Asks().AddRequests(durable(ctx), t.RunID, []*journal.Request{{Address: local, Kind: kind, RequestDigest: r.RequestDigest, Payload: r.Payload}}); err != nil {
		return nil, err
	}
	pc := turn.Pending{Address: local, Index: c.Index, CallID: c.Req.CallID, Tool: c.Req.Tool, InputDigest: c.Digest, RequestDigest: r.RequestDigest, Floor: a.Floor}
	if err := k.journal.AppendEvent(durable(ctx), t.RunID, "calls", turn.EventCallPending, pc); err != nil {
		return nil, err
	}
	res := turn.PendingResult(t, pc)
	if res.Waiting, err = k.engine.presentWaiting([]pending{{Request: r, RunID: t.RunID, Local: local}}); err != nil {
		return nil, err
	}
	return res, nil
}

// BindLoad binds the package a turn's load names, as the run binds a
// skill, under the run's authority: a ref that does not resolve, or a
// package the authority's packages do not cover over the run's chain, is
// the refusal.
func (p turnPort) BindLoad(ctx context.Context, t *OpenTurn, ref string) (*pkg.Package, *contract.ErrorBody, error) {
	rc, err := p.k.runCtxFor(ctx, t.RunID)
	if err != nil {
		return nil, nil, err
	}
	lp, _, err := p.k.engine.Resolver.Resolve(t.Package.Dir, ref)
	if err != nil {
		return nil, contract.BodyOf(err), nil
	}
	a, err := gate.Recorded(rc.rec.Authority)
	if err == nil && a != nil {
		err = a.Packages.CheckChain(append(slices.Clone(rc.Chain), gate.PackageRef(p.k.engine.HomeDir, lp)))
		return lp, contract.BodyOf(err), nil
	}
	return lp, nil, err
}

// SettleCall seals a call that ran no unit (a load) with its receipt and
// records it as the turn's calls are recorded; made again after a
// person's decision, it uses the decision and the run waits on the rest.
func (p turnPort) SettleCall(ctx context.Context, t *OpenTurn, c turn.Claimed, kind pkg.StepKind, status contract.StepStatus, output any, failure *contract.ErrorBody) (*TurnCallResult, error) {
	rc, err := p.k.runCtxFor(ctx, t.RunID)
	if err != nil {
		return nil, err
	}
	local := t.Local + "/" + strconv.Itoa(c.Index)
	r := rc.runner().SettleNow(ctx, &pkg.Step{ID: t.Step.ID, Kind: kind}, local, rc.Depth+2, status, output, failure, nil)
	if r.Err != nil {
		return nil, r.Err
	}
	out, err := rc.recordTurnCall(ctx, t.Local, c.Index, c.Req.Tool, c.Digest, c.Req.CallID, r.Settled)
	if err == nil && c.Again {
		if err = p.k.journal.Asks().UseDecision(durable(ctx), t.RunID, local, nil); err == nil {
			err = rc.repause(ctx)
		}
	}
	return out, err
}

// Collect settles a pending ask_human call from the person's recorded
// decision, or reports it pending while none is.
func (p turnPort) Collect(ctx context.Context, t *OpenTurn, pc turn.Pending) (*TurnCallResult, error) {
	k := p.k
	ds, err := k.journal.Asks().Decisions(durable(ctx), t.RunID)
	if err != nil {
		return nil, err
	}
	d := ds[pc.Address]
	if d == nil || d.RequestDigest != pc.RequestDigest {
		res := turn.PendingResult(t, pc)
		reqs, err := k.journal.Asks().Requests(durable(ctx), t.RunID)
		if err != nil {
			return nil, err
		}
		for _, r := range reqs {
			if r.Address == pc.Address {
				asked := contract.Request{Address: t.Address + "/" + strconv.Itoa(pc.Index), Kind: r.Kind, RequestDigest: r.RequestDigest, Payload: r.Payload,
					Summary: contract.RequestSummary{PayloadDigest: payloadDigest(r.Payload), StepID: t.Local}}
				if res.Waiting, err = k.engine.presentWaiting([]pending{{Request: asked, RunID: t.RunID, Local: r.Address}}); err != nil {
					return nil, err
				}
			}
		}
		return res, nil
	}
	rc, err := k.runCtxFor(ctx, t.RunID)
	if err != nil {
		return nil, err
	}
	body := rc.runner().StepBody(t.Step, pc.Address)
	body.Execution = execHost
	var output any
	if err := json.Unmarshal(d.Value, &output); err != nil {
		return nil, err
	}
	body.Extra = map[string]any{"decision": map[string]any{"lane": contract.LaneApprovals}}
	s, rec, err := rc.runner().Seal(t.Step, pc.Address, body, contract.StepSuccess, output, nil, nil)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(s.Output)
	rec.Output, _ = json.Marshal(turn.Recorded{Kind: string(script.KindCall), Tool: pc.Tool, InputDigest: pc.InputDigest, CallID: pc.CallID, Output: raw})
	if err := k.journal.Asks().UseDecision(durable(ctx), t.RunID, pc.Address, rec); err != nil {
		return nil, err
	}
	if err := rc.repause(ctx); err != nil {
		return nil, err
	}
	out := &TurnCallResult{CallRecord: TurnCallRecord{Index: pc.Index, Address: t.Address + "/" + strconv.Itoa(pc.Index), CallID: pc.CallID,
		Tool: pc.Tool, InputDigest: pc.InputDigest, Status: contract.CallSuccess, Output: raw, ReceiptID: s.ReceiptID}}
	event := map[string]any{"address": out.Address, "call_id": pc.CallID, "tool": pc.Tool, "status": out.Status, "receipt_id": out.ReceiptID}
	if event["outcome"], err = turn.Outcome(rc.e.ProjectDir, t.RunID, pc.Address, contract.StepSuccess, s.Output, nil, nil); err != nil {
		return nil, err
	}
	return out, k.journal.AppendEvent(durable(ctx), t.RunID, "calls", "call."+string(out.Status), event)
}
