package turn

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

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
	result       *CallResult
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

// WaitIdle blocks until no turn call of the run is executing in this
// process: turn_status, turn_read, turn_list and turn_complete read the
// run only once its calls have settled.
func WaitIdle(ctx context.Context, runID string) {
	claims.mu.Lock()
	defer claims.mu.Unlock()
	r := claims.forRun(runID)
	for r.executing > 0 && ctx.Err() == nil {
		r.idle.Wait()
	}
}

// Make admits and carries out one call of an open turn.
func Make(ctx context.Context, e Engine, req CallRequest) (*CallResult, error) {
	t, err := Read(ctx, e, req.RunID, req.Turn)
	if err != nil {
		return nil, err
	}
	input := bytes.TrimSpace(req.Input)
	if len(input) == 0 {
		input = []byte("{}")
	}
	var in map[string]any
	if err := json.Unmarshal(input, &in); err != nil || in == nil {
		return nil, contract.Errorf(errcode.CallInputInvalid, "input must be a JSON object")
	}
	var step *pkg.Step
	var loading string
	if req.Tool == Load && t.Step.Agent != nil && t.Step.Agent.Calls != nil && len(t.Step.Agent.Calls.Load) > 0 {
		if loading, err = loadRef(t.Step, input); err != nil {
			return nil, err
		}
	} else if step, err = CallStep(t.Step, req.Tool); err != nil {
		return nil, err
	}
	reuse, err := e.Reuse(req, step != nil && step.Kind == pkg.KindSkill)
	if err != nil {
		return nil, err
	}
	if req.Act != "" && (step == nil || step.Kind != pkg.KindSkill) {
		return nil, contract.Errorf(errcode.CallActUnsupported, "option \"act\" of call %s: only a skill call states an act (it becomes its child run's act)", req.Tool)
	}
	if step == nil && loading == "" && req.CallID == "" {
		return nil, contract.Errorf(errcode.AskHumanCallIDRequired, "ask_human needs a call_id: the same call made again with it collects the person's answer")
	}
	if step == nil && loading == "" {
		// Checked before an index is claimed: a refused ask takes none.
		if _, _, err := AskRequest(t.Step, input); err != nil {
			return nil, err
		}
	}
	digest := digestRaw(input)

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
			return &CallResult{CallRecord: *rec, Pinned: true}, nil
		case rec.Status == contract.CallPending:
			claims.mu.Unlock()
			return e.Collect(ctx, t, Pending{Address: t.Local + "/" + strconv.Itoa(rec.Index), Index: rec.Index, CallID: rec.CallID,
				Tool: rec.Tool, InputDigest: rec.InputDigest, RequestDigest: rec.RequestDigest})
		default:
			claims.mu.Unlock()
			return &CallResult{CallRecord: *rec, Pinned: true}, nil
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
		if recorded := skillCalls(t.Calls); recorded > made {
			made = recorded
		}
		skillOrdinal = made + 1
		rc.skills[t.Address] = skillOrdinal
	}
	if rc.executing == 0 {
		drv, err := e.Journal().Drive(req.RunID)
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

	c := Claimed{Req: req, Index: index, In: in, Input: input, Digest: digest, Reuse: reuse, Again: again >= 0, SkillOrdinal: skillOrdinal}
	switch {
	case loading != "":
		f.result, f.err = load(callCtx, e, t, c, loading)
	case step == nil:
		kind, payload, _ := AskRequest(t.Step, input)
		f.result, f.err = e.Ask(callCtx, t, c, Asked{Kind: kind, Payload: payload})
	default:
		f.result, f.err = e.Carry(callCtx, t, step, c)
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

// digestRaw is the digest of a call's input: of its canonical JSON, or of
// its bytes where they are not canonicalisable, as the engine digests raw
// JSON.
func digestRaw(raw json.RawMessage) string {
	c, err := canon.CanonicalJSON(raw)
	if err != nil {
		return canon.DigestBytes(raw)
	}
	return canon.DigestBytes(c)
}
