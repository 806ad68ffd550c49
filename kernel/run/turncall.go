package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/reuse"
)

// TurnCallRequest is one call an agent makes inside an open turn (MCP's
// turn_call): admitted against the turn's declared calls, under the run's
// authority and floor, executed and recorded at <turn>/<n>.
type TurnCallRequest struct {
	RunID string
	Turn  string
	Tool  string
	Input json.RawMessage
	// CallID is the host's own id for the call, unique within the turn: a
	// call made again with it returns the recorded call.
	CallID string
	// Act is a skill call's act, stated beside the child's inputs: it
	// becomes the child run's act ($run.act). Only a skill call takes one.
	Act string
	// Reuse is a skill call's reuse option ({max_age_seconds}): an earlier
	// sealed run of the skill under the same resolved inputs and child
	// context, no older than that, is its result (kernel/run/reuse).
	Reuse json.RawMessage
}

// CodeCallActUnsupported refuses an act on a call that is not a skill call.
const CodeCallActUnsupported = "call_act_unsupported"

// TurnCallResult is how a turn's call settled.
type TurnCallResult struct {
	TurnCallRecord
	// Pinned says the call was not run again: its call_id named a call the
	// run had recorded, which this is.
	Pinned bool `json:"pinned,omitempty"`
	// Waiting holds what the call waits on when the approval floor stops it.
	Waiting []contract.Request `json:"waiting,omitempty"`
}

// turnClaims serialises the admission and claim of a run's turn calls in
// this process, so calls made at once take distinct indexes in order and
// then execute apart.
type turnClaims struct {
	mu   sync.Mutex
	runs map[string]*runClaims
}

type runClaims struct {
	next map[string]int // the next call index, by turn address
	// skills counts the skill calls claimed, by turn address, for
	// max_fanout.
	skills map[string]int

	inFlight  map[string]*inFlightCall           // by turn address and call_id
	cancels   map[string]context.CancelCauseFunc // by address, while executing
	executing int
	// driver is the run's driver claim, held while any call executes: the
	// calls of one session share it, and no other process drives the run
	// meanwhile.
	driver *journal.Driver
	idle   *sync.Cond
}

type inFlightCall struct {
	tool, digest string
	done         chan struct{}
	result       *TurnCallResult
	err          error
}

var claims = &turnClaims{runs: map[string]*runClaims{}}

func (c *turnClaims) forRun(runID string) *runClaims {
	r := c.runs[runID]
	if r == nil {
		r = &runClaims{next: map[string]int{}, skills: map[string]int{}, inFlight: map[string]*inFlightCall{}, cancels: map[string]context.CancelCauseFunc{}}
		r.idle = sync.NewCond(&c.mu)
		c.runs[runID] = r
	}
	return r
}

// WaitTurnCallsIdle blocks until no turn call of the run is executing in
// this process: turn_status, turn_read, turn_list and turn_complete read
// the run only once its calls have settled.
func WaitTurnCallsIdle(ctx context.Context, runID string) {
	claims.mu.Lock()
	defer claims.mu.Unlock()
	r := claims.forRun(runID)
	for r.executing > 0 && ctx.Err() == nil {
		r.idle.Wait()
	}
}

// TurnCall admits and carries out one call of an open turn.
func (k *Kernel) TurnCall(ctx context.Context, req TurnCallRequest) (*TurnCallResult, error) {
	t, err := k.Turn(ctx, req.RunID, req.Turn)
	if err != nil {
		return nil, err
	}
	input := bytes.TrimSpace(req.Input)
	if len(input) == 0 {
		input = []byte("{}")
	}
	var in map[string]any
	if err := json.Unmarshal(input, &in); err != nil || in == nil {
		return nil, contract.Errorf("call_input_invalid", "input must be a JSON object")
	}
	step, err := turnCallStep(t.Step, req.Tool)
	if err != nil {
		return nil, err
	}
	opt, err := reuse.Parse(req.Reuse)
	if err != nil {
		return nil, err
	}
	if opt != nil && (step == nil || step.Kind != pkg.KindSkill) {
		return nil, contract.Errorf(reuse.CodeCallReuseUnsupported, "option \"reuse\" of call %s: only a skill call reuses an earlier sealed result; make the call without reuse", req.Tool)
	}
	if req.Act != "" && (step == nil || step.Kind != pkg.KindSkill) {
		return nil, contract.Errorf(CodeCallActUnsupported, "option \"act\" of call %s: only a skill call states an act (it becomes its child run's act)", req.Tool)
	}
	if step == nil && req.CallID == "" {
		return nil, contract.Errorf("ask_human_call_id_required", "ask_human needs a call_id: the same call made again with it collects the person's answer")
	}
	if step == nil {
		// Checked before an index is claimed: a refused ask takes none.
		if _, _, err := askRequest(t.Step, input); err != nil {
			return nil, err
		}
	}
	digest := mustDigestRaw(input)

	claims.mu.Lock()
	rc := claims.forRun(req.RunID)
	// A call_id is unique within its turn.
	flight := t.Address + "\x00" + req.CallID
	if f := rc.inFlight[flight]; req.CallID != "" && f != nil {
		claims.mu.Unlock()
		if f.tool != req.Tool || f.digest != digest {
			return nil, callIDConflict(req.CallID)
		}
		<-f.done
		if f.err != nil {
			return nil, f.err
		}
		pinned := *f.result
		pinned.Pinned = true
		return &pinned, nil
	}
	// again is the index of a call the floor stopped that this call makes
	// again, to run it once a person decided or report it still waiting.
	again := -1
	if rec := pinnedCall(t.Calls, req.CallID, req.Tool, digest); rec != nil {
		if rec.Tool != req.Tool || rec.InputDigest != digest {
			claims.mu.Unlock()
			return nil, callIDConflict(req.CallID)
		}
		switch {
		case rec.Status == contract.CallPending && rec.floor:
			again = rec.Index
		case rec.Status == contract.CallPending && rec.skill:
			// Its child waits: the host works the child's turns, and the
			// call settles when the child seals.
			claims.mu.Unlock()
			return &TurnCallResult{TurnCallRecord: *rec, Pinned: true}, nil
		case rec.Status == contract.CallPending:
			claims.mu.Unlock()
			return k.collectAsk(ctx, t, pendingCall{Address: t.Local + "/" + strconv.Itoa(rec.Index), Index: rec.Index, CallID: rec.CallID,
				Tool: rec.Tool, InputDigest: rec.InputDigest, RequestDigest: rec.RequestDigest})
		default:
			claims.mu.Unlock()
			return &TurnCallResult{TurnCallRecord: *rec, Pinned: true}, nil
		}
	}
	next := rc.next[t.Address]
	for _, c := range t.Calls {
		next = max(next, c.Index+1)
	}
	// A skill call starts a child run: the turn's max_fanout counts each,
	// in the order the calls were claimed, with those the turn already made
	// (settled, pending or refused), as a script's skill calls are counted.
	skillOrdinal := 0
	if step != nil && step.Kind == pkg.KindSkill && again < 0 {
		made := rc.skills[t.Address]
		if recorded := turnSkillCalls(t.Calls); recorded > made {
			made = recorded
		}
		skillOrdinal = made + 1
		rc.skills[t.Address] = skillOrdinal
	}
	if rc.executing == 0 {
		drv, err := k.Journal.Drive(req.RunID)
		if err != nil {
			claims.mu.Unlock()
			return nil, err
		}
		rc.driver = drv
	}
	index := next
	if again >= 0 {
		index = again
	} else {
		rc.next[t.Address] = next + 1
	}
	rc.executing++
	f := &inFlightCall{tool: req.Tool, digest: digest, done: make(chan struct{})}
	if req.CallID != "" {
		rc.inFlight[flight] = f
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	address := t.Address + "/" + strconv.Itoa(index)
	rc.cancels[address] = cancel
	claims.mu.Unlock()

	if step == nil {
		f.result, f.err = k.askHuman(callCtx, t, index, input, digest, req)
	} else {
		f.result, f.err = k.carryOutTurnCall(callCtx, t, step, index, in, input, digest, req, opt, again >= 0, skillOrdinal)
	}
	claims.mu.Lock()
	rc.executing--
	if rc.executing == 0 {
		rc.driver.Release()
		rc.driver = nil
	}
	delete(rc.cancels, address)
	delete(rc.inFlight, flight)
	rc.idle.Broadcast()
	claims.mu.Unlock()
	close(f.done)
	return f.result, f.err
}

// turnSkillCalls counts the skill calls a turn has made: each started (or
// was refused starting) a child run.
func turnSkillCalls(calls []TurnCallRecord) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c.Tool, "skill:") {
			n++
		}
	}
	return n
}

// turnChildLimits refuses a turn's skill call, the ordinal-th of its turn,
// where the authority's max_fanout or max_child_depth is lower; a call that
// is not a skill call (ordinal 0) starts no child.
func (rc *runCtx) turnChildLimits(step *pkg.Step, ordinal int) error {
	if ordinal == 0 {
		return nil
	}
	return rc.childLimits(step, ordinal)
}

func callIDConflict(id string) error {
	return contract.Errorf("call_id_conflict", "call_id %q names a call of this turn made with another tool or input; a call_id is one call", id)
}

// pinnedCall is the recorded call a call names by its call_id. A call
// without one names a call the floor stopped, made without a call_id, of
// the same tool and input: it has no other way to be made again.
func pinnedCall(calls []TurnCallRecord, id, tool, digest string) *TurnCallRecord {
	for i := range calls {
		c := &calls[i]
		if id != "" && c.CallID == id {
			return c
		}
		if id == "" && c.CallID == "" && c.floor && c.Status == contract.CallPending && c.Tool == tool && c.InputDigest == digest {
			return c
		}
	}
	return nil
}

// carryOutTurnCall runs the call as a unit of the turn's run at <turn>/<n>,
// under the authority and floor of a step, and records it with its call_id.
func (k *Kernel) carryOutTurnCall(ctx context.Context, t *OpenTurn, step *pkg.Step, index int, in map[string]any, input json.RawMessage, digest string, req TurnCallRequest, reuse *ReuseOption, again bool, skillOrdinal int) (*TurnCallResult, error) {
	rc, err := k.runCtxFor(ctx, t.RunID)
	if err != nil {
		return nil, err
	}
	rec := rc.rec
	address := t.Local + "/" + strconv.Itoa(index)
	rc.ChildAct, rc.ChildReuse, rc.TurnCall = req.Act, reuse, true
	var r stepRun
	if err := rc.turnChildLimits(step, skillOrdinal); err != nil {
		r = rc.settleNow(ctx, step, address, rc.Depth+2, contract.StepRefused, nil, contract.BodyOf(err), nil)
	} else {
		r = rc.unit(ctx, step, address, in, rc.Depth+2)
	}
	if r.err != nil {
		return nil, r.err
	}
	out := &TurnCallResult{TurnCallRecord: TurnCallRecord{Index: index, Address: rc.address(address), CallID: req.CallID, Tool: req.Tool, InputDigest: digest, Reuse: rc.ReuseNote}}
	if r.settled == nil && r.stopped {
		// A skill call's child run stopped between steps on a cancel: it
		// stays where it stopped.
		out.Status = contract.CallStopped
		return out, nil
	}
	if r.settled == nil && step.Kind == pkg.KindSkill {
		return k.keepChildPause(ctx, t, out, r.waiting, r.refused, input, req.Act)
	}
	if r.settled == nil {
		return k.keepPending(ctx, t, out, r.waiting, again)
	}
	if out, err = rc.recordTurnCall(ctx, t.Local, index, req.Tool, digest, req.CallID, r.settled); err != nil {
		return nil, err
	}
	if again {
		// It used a person's decision: the turn is still open, and the
		// run waits on what stays open.
		if err := k.repause(ctx, rec.RunID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// keepPending keeps a call the floor stopped as a pending call of its
// turn: its request joins what the run waits on, a person answers it under
// approvals, and the same call made again runs it or settles it declined.
func (k *Kernel) keepPending(ctx context.Context, t *OpenTurn, out *TurnCallResult, waiting []pending, again bool) (*TurnCallResult, error) {
	out.Status = contract.CallPending
	local := t.Local + "/" + strconv.Itoa(out.Index)
	var reqs []*journal.Request
	var digest string
	for _, w := range waiting {
		if w.runID == t.RunID && w.local == local {
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
	if err := k.Journal.AddRequests(durable(ctx), t.RunID, reqs); err != nil {
		return nil, err
	}
	p := pendingCall{Address: local, Index: out.Index, CallID: out.CallID, Tool: out.Tool, InputDigest: out.InputDigest, RequestDigest: digest, Floor: true}
	if err := k.Journal.AppendEvent(durable(ctx), t.RunID, "calls", eventCallPending, p); err != nil {
		return nil, err
	}
	return out, nil
}

// TurnCallable is one call a turn may make: a capability under
// calls.tools, a connector operation under calls.operations, a skill under
// calls.skills (named skill:<ref>).
type TurnCallable struct {
	Tool string `json:"tool"`
	Kind string `json:"kind"`
}

// TurnCallables lists the calls an agent step offers its turn, in the
// order its calls declare them. ask_human is offered where the step says
// ask: true.
func TurnCallables(step *pkg.Step) []TurnCallable {
	var out []TurnCallable
	if step.Agent == nil {
		return nil
	}
	if c := step.Agent.Calls; c != nil {
		for _, t := range c.Tools {
			out = append(out, TurnCallable{Tool: t, Kind: "tool"})
		}
		for _, o := range c.Operations {
			out = append(out, TurnCallable{Tool: o, Kind: "operation"})
		}
		for _, s := range c.Skills {
			out = append(out, TurnCallable{Tool: "skill:" + s, Kind: "skill"})
		}
	}
	if step.Agent.Ask {
		out = append(out, TurnCallable{Tool: AskHuman, Kind: "ask_human"})
	}
	return out
}

// AskHuman is the call a turn whose step says ask: true may make to put a
// question to a person.
const AskHuman = "ask_human"

// turnCallStep is the step a turn's call runs as; nothing its step's calls
// do not name is offered.
func turnCallStep(step *pkg.Step, tool string) (*pkg.Step, error) {
	if step.Agent == nil {
		return nil, contract.Errorf("turn_not_agent", "step %s is not an agent turn", step.ID)
	}
	if tool == AskHuman && step.Agent.Ask {
		return nil, nil // a question for a person: askHuman carries it out
	}
	calls := step.Agent.Calls
	if calls == nil {
		calls = &pkg.Calls{}
	}
	base := pkg.Step{ID: step.ID, Effects: step.Effects, Reach: step.Reach, TimeoutSeconds: step.TimeoutSeconds}
	switch {
	case strings.HasPrefix(tool, "skill:") && slices.Contains(calls.Skills, strings.TrimPrefix(tool, "skill:")):
		base.Kind, base.Skill = pkg.KindSkill, strings.TrimPrefix(tool, "skill:")
	case slices.Contains(calls.Operations, tool):
		connector, operation, _ := strings.Cut(tool, "/")
		base.Kind, base.Operation = pkg.KindOperation, &pkg.OperationStep{Ref: tool, Connector: connector, Operation: operation}
	case slices.Contains(calls.Tools, tool):
		base.Kind, base.Tool = pkg.KindTool, &pkg.ToolStep{Capability: tool}
	default:
		return nil, contract.Errorf("call_not_allowed", "%s", fmt.Sprintf("turn %s does not list %q under calls; a turn is offered only what its calls name (turn_status lists them)", step.ID, tool))
	}
	return &base, nil
}
