package run

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/script"
	"github.com/runxhq/runx/kernel/run/turn"
	"github.com/runxhq/runx/sdk/errcode"
)

// turnWaits is what an agent turn's calls wait on as the turn's gate is
// reached: its skill calls whose child waits are driven again (a child the
// host answered goes on), and what the turn's calls asked a person
// (ask_human) stays asked.
func (rc *runCtx) turnWaits(ctx context.Context, step *pkg.Step, local string, level int) stepRun {
	calls := rc.driveTurnSkillCalls(ctx, step, local, level)
	if calls.Err != nil || calls.Stopped {
		return calls
	}
	calls.Waiting = append(calls.Waiting, rc.openTurnCallRequests(ctx, local)...)
	return calls
}

// driveTurnSkillCalls drives again each skill call of an agent turn whose
// child waits, as the turn's gate is reached: a child whose turn the host
// answered goes on, and its call settles when it seals. What the children
// still wait on is returned for the turn to wait on beside its own.
func (rc *runCtx) driveTurnSkillCalls(ctx context.Context, step *pkg.Step, local string, level int) stepRun {
	var out stepRun
	events, err := rc.e.Journal.Events(durable(ctx), rc.rec.RunID, 0)
	if err != nil {
		return stepRun{Err: err}
	}
	steps, err := rc.e.Journal.Steps(durable(ctx), rc.rec.RunID)
	if err != nil {
		return stepRun{Err: err}
	}
	for _, ev := range events {
		if ev.Stream != "calls" || ev.Type != turn.EventCallPending {
			continue
		}
		var p turn.Pending
		if json.Unmarshal(ev.Data, &p) != nil || !p.Skill || !strings.HasPrefix(p.Address, local+"/") || steps[p.Address] != nil {
			continue
		}
		callStep, err := turn.CallStep(step, p.Tool)
		if err != nil || callStep.Kind != pkg.KindSkill {
			return stepRun{Err: contract.Errorf(errcode.JournalRecordInvalid, "pending call %s names %s, which turn %s no longer offers as a skill", p.Address, p.Tool, local)}
		}
		var in map[string]any
		if err := json.Unmarshal(p.Input, &in); err != nil {
			return stepRun{Err: contract.Errorf(errcode.JournalRecordInvalid, "the journal's pending call %s does not decode: %v", p.Address, err)}
		}
		rc.ChildAct = p.Act
		r := rc.unit(ctx, callStep, p.Address, in, level+1)
		rc.ChildAct = ""
		switch {
		case r.Err != nil:
			return r
		case r.Stopped:
			return r
		case r.Settled != nil:
			if _, err := rc.recordTurnCall(ctx, local, p.Index, p.Tool, p.InputDigest, p.CallID, r.Settled); err != nil {
				return stepRun{Err: err}
			}
		default:
			out.Waiting = append(out.Waiting, r.Waiting...)
			out.Refused = append(out.Refused, r.Refused...)
		}
	}
	return out
}

// recordTurnCall records how a turn's call settled at <turn>/<index> of
// rc's run, in the script call's shape with the call_id its host pinned,
// and appends its event to the run's calls stream.
func (rc *runCtx) recordTurnCall(ctx context.Context, local string, index int, tool, digest, callID string, s *settled) (*TurnCallResult, error) {
	address := local + "/" + strconv.Itoa(index)
	out := &TurnCallResult{CallRecord: TurnCallRecord{Index: index, Address: rc.Address(address), CallID: callID, Tool: tool, InputDigest: digest,
		Status: contract.CallStatus(s.Status), ReceiptID: s.ReceiptID, Reuse: rc.ReuseNote}}
	jrec := &journal.Step{RunID: rc.rec.RunID, Address: address, StepID: local, Status: s.Status, ReceiptID: s.ReceiptID}
	jrec.ChildRef, _ = json.Marshal(s.Ref)
	if s.Status == contract.StepSuccess {
		raw, err := json.Marshal(s.Output)
		if err != nil {
			return nil, err
		}
		out.Output, out.Artifacts = raw, s.Artifacts
		jrec.Output, _ = json.Marshal(turn.Recorded{Kind: string(script.KindCall), Tool: tool, InputDigest: digest, CallID: callID, Output: raw, Reuse: rc.ReuseNote, Artifacts: s.Artifacts})
	} else {
		f := *s.Failure
		f.Detail = map[string]any{"tool": tool, "input_digest": digest, "call_id": callID}
		out.Error = &f
		jrec.Error, _ = json.Marshal(f)
		if f.Code == errcode.CallCancelled {
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
	var err error
	if event["outcome"], err = turn.Outcome(rc.e.ProjectDir, rc.rec.RunID, address, s.Status, s.Output, s.Artifacts, s.Failure); err != nil {
		return nil, err
	}
	if err := rc.e.Journal.AppendEvent(durable(ctx), rc.rec.RunID, "calls", "call."+string(out.Status), event); err != nil {
		return nil, err
	}
	return out, nil
}

// openTurnCallRequests are the requests a turn's calls opened and a person
// has not answered: the turn's gate waits on them beside its own, so a
// resume that drives the run keeps them.
func (rc *runCtx) openTurnCallRequests(ctx context.Context, local string) []pending {
	reqs, err := rc.e.Journal.Asks().Requests(durable(ctx), rc.rec.RunID)
	if err != nil {
		return nil
	}
	var out []pending
	for _, r := range reqs {
		rest, ok := strings.CutPrefix(r.Address, local+"/")
		if !ok || r.State != journal.RequestOpen || strings.ContainsAny(rest, "/#[") {
			continue
		}
		if d := rc.Decisions[r.Address]; d != nil && d.RequestDigest == r.RequestDigest {
			continue // answered: the call collects it
		}
		out = append(out, pending{Request: contract.Request{Address: rc.Address(r.Address), Kind: r.Kind, RequestDigest: r.RequestDigest, Payload: r.Payload,
			Summary: contract.RequestSummary{PayloadDigest: payloadDigest(r.Payload), StepID: local}}, RunID: rc.rec.RunID, Local: r.Address})
	}
	return out
}
