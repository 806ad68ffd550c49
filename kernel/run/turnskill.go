package run

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
)

// recordTurnCall records how a turn's call settled at <turn>/<index> of
// rc's run, in the script call's shape with the call_id its host pinned,
// and appends its event to the run's calls stream.
func (rc *runCtx) recordTurnCall(ctx context.Context, turn string, index int, tool, digest, callID string, s *settled) (*TurnCallResult, error) {
	address := turn + "/" + strconv.Itoa(index)
	out := &TurnCallResult{TurnCallRecord: TurnCallRecord{Index: index, Address: rc.address(address), CallID: callID, Tool: tool, InputDigest: digest,
		Status: contract.CallStatus(s.status), ReceiptID: s.receiptID, Reuse: rc.ReuseNote}}
	jrec := &journal.Step{RunID: rc.rec.RunID, Address: address, StepID: turn, Status: s.status, ReceiptID: s.receiptID}
	jrec.ChildRef, _ = json.Marshal(s.ref)
	if s.status == contract.StepSuccess {
		raw, err := json.Marshal(s.output)
		if err != nil {
			return nil, err
		}
		out.Output = raw
		jrec.Output, _ = json.Marshal(turnCall{Kind: "call", Tool: tool, InputDigest: digest, CallID: callID, Output: raw, Reuse: rc.ReuseNote})
	} else {
		f := *s.failure
		f.Detail = map[string]any{"tool": tool, "input_digest": digest, "call_id": callID}
		out.Error = &f
		jrec.Error, _ = json.Marshal(f)
		if f.Code == CodeCallCancelled {
			// Its receipt says failed; the call reads as cancelled.
			out.Status = contract.CallCancelled
		}
	}
	if err := rc.e.Journal.RecordStep(durable(ctx), jrec); err != nil {
		return nil, err
	}
	event := map[string]any{"address": out.Address, "call_id": callID, "tool": tool, "status": out.Status, "receipt_id": out.ReceiptID}
	if out.Error != nil {
		event["error"] = out.Error
	}
	if out.Reuse != nil {
		event["reuse"] = out.Reuse
	}
	if err := rc.e.Journal.AppendEvent(durable(ctx), rc.rec.RunID, "calls", "call."+string(out.Status), event); err != nil {
		return nil, err
	}
	return out, nil
}

// keepChildPause keeps the pause of a skill call's child: the child's
// requests are recorded in the runs that ask them, addressed from the root
// under the call (answer/0#report), so the host works them through the
// same turn tools; the call stays pending until the child seals, which the
// run's next driver sees to (driveTurnSkillCalls).
func (k *Kernel) keepChildPause(ctx context.Context, t *OpenTurn, out *TurnCallResult, waiting []pending, refused []contract.RefusedAnswer, input json.RawMessage, act string) (*TurnCallResult, error) {
	out.Status = contract.CallPending
	byRun := map[string][]*journal.Request{}
	for _, w := range waiting {
		byRun[w.runID] = append(byRun[w.runID], &journal.Request{Address: w.local, Kind: w.Kind, RequestDigest: w.RequestDigest, Payload: w.Payload})
	}
	if len(refused) > 0 || len(byRun) == 0 {
		return nil, contract.Errorf("turn_call_child_unsettled", "skill call %s neither settled nor waits on a request of its child", out.Address)
	}
	shown, err := k.engine.presentWaiting(waiting)
	if err != nil {
		return nil, err
	}
	out.Waiting = shown
	for runID, reqs := range byRun {
		if runID == t.RunID {
			return nil, contract.Errorf("turn_call_child_unsettled", "skill call %s waits on its own run, not its child", out.Address)
		}
		if err := k.Journal.Pause(durable(ctx), runID, reqs); err != nil {
			return nil, err
		}
	}
	// Every run between a waiting child and the turn's run is paused too;
	// the turn's run already is, on its turn.
	byRun[t.RunID] = nil
	if err := k.engine.pauseAncestors(ctx, byRun); err != nil {
		return nil, err
	}
	p := pendingCall{Address: t.Local + "/" + strconv.Itoa(out.Index), Index: out.Index, CallID: out.CallID, Tool: out.Tool, InputDigest: out.InputDigest,
		Skill: true, Input: input, Act: act}
	if err := k.Journal.AppendEvent(durable(ctx), t.RunID, "calls", eventCallPending, p); err != nil {
		return nil, err
	}
	return out, nil
}

// driveTurnSkillCalls drives again each skill call of an agent turn whose
// child waits, as the turn's gate is reached: a child whose turn the host
// answered goes on, and its call settles when it seals. What the children
// still wait on is returned for the turn to wait on beside its own.
func (rc *runCtx) driveTurnSkillCalls(ctx context.Context, step *pkg.Step, local string, level int) stepRun {
	var out stepRun
	events, err := rc.e.Journal.Events(durable(ctx), rc.rec.RunID, 0)
	if err != nil {
		return stepRun{err: err}
	}
	steps, err := rc.e.Journal.Steps(durable(ctx), rc.rec.RunID)
	if err != nil {
		return stepRun{err: err}
	}
	for _, ev := range events {
		if ev.Stream != "calls" || ev.Type != eventCallPending {
			continue
		}
		var p pendingCall
		if json.Unmarshal(ev.Data, &p) != nil || !p.Skill || !strings.HasPrefix(p.Address, local+"/") || steps[p.Address] != nil {
			continue
		}
		callStep, err := turnCallStep(step, p.Tool)
		if err != nil || callStep.Kind != pkg.KindSkill {
			return stepRun{err: contract.Errorf(CodeJournalRecordInvalid, "pending call %s names %s, which turn %s no longer offers as a skill", p.Address, p.Tool, local)}
		}
		var in map[string]any
		if err := json.Unmarshal(p.Input, &in); err != nil {
			return stepRun{err: contract.Errorf(CodeJournalRecordInvalid, "the journal's pending call %s does not decode: %v", p.Address, err)}
		}
		rc.ChildAct = p.Act
		r := rc.unit(ctx, callStep, p.Address, in, level+1)
		rc.ChildAct = ""
		switch {
		case r.err != nil:
			return r
		case r.stopped:
			return r
		case r.settled != nil:
			if _, err := rc.recordTurnCall(ctx, local, p.Index, p.Tool, p.InputDigest, p.CallID, r.settled); err != nil {
				return stepRun{err: err}
			}
		default:
			out.waiting = append(out.waiting, r.waiting...)
			out.refused = append(out.refused, r.refused...)
		}
	}
	return out
}
