package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/runxhq/runx/kernel/run/readmodel"
	"github.com/runxhq/runx/kernel/run/runstate"
	runstep "github.com/runxhq/runx/kernel/run/step"
	"github.com/runxhq/runx/sdk/canon"
)

// finish turns where the root got to into its envelope: sealed, paused on
// requests, or stopped where a signal left it.
func (e *engine) finish(ctx context.Context, rc *runCtx, out *outcome) (*contract.SkillRun, error) {
	var env *contract.SkillRun
	var err error
	switch out.state {
	case driveError:
		return nil, fmt.Errorf("run %s: %s", rc.rec.RunID, e.Taint.Scrub(out.failure.Message))
	case drivePaused:
		env, err = e.pause(ctx, rc, out)
	case driveStopped:
		env, err = e.stopped(ctx, rc, out)
	default:
		env, _, err = e.sealRun(ctx, rc, out)
	}
	return e.scrubEnvelope(env), err
}

// scrubEnvelope is the envelope boundary of the taint set: what the caller
// (CLI, MCP, a parent) receives holds no delivered value in any field.
func (e *engine) scrubEnvelope(env *contract.SkillRun) *contract.SkillRun {
	if env == nil || e.Taint.Empty() {
		return env
	}
	raw, err := json.Marshal(env)
	if err != nil {
		return env
	}
	clean := e.Taint.ScrubJSON(raw)
	if bytes.Equal(clean, raw) {
		return env
	}
	var out contract.SkillRun
	if json.Unmarshal(clean, &out) != nil {
		return env
	}
	return &out
}

// sealer signs and stores the receipts of the engine's runs
// (kernel/run/step).
func (e *engine) sealer() runstep.Sealer {
	return runstep.Sealer{Taint: e.Taint, Signer: e.Signer, Store: e.Store}
}

// sealRun signs the run's receipt over its steps', stores it, and records
// the seal with the envelope a later resume returns.
func (e *engine) sealRun(ctx context.Context, rc *runCtx, out *outcome) (*contract.SkillRun, receipt.ChildRef, error) {
	authorityDigest, err := gate.Digest(rc.rec.Authority)
	if err != nil {
		return nil, receipt.ChildRef{}, err
	}
	body := receipt.Body{
		Kind:            receipt.KindRun,
		RunID:           rc.rec.RunID,
		SkillName:       rc.pkg.Name,
		Method:          rc.method.Name,
		PackageDigest:   rc.rec.PackageDigest,
		ClosureDigest:   rc.rec.ClosureDigest,
		AuthorityDigest: authorityDigest,
		InputsDigest:    canon.DigestBytes(mustCanonical(rc.rec.Inputs)),
		Outcome:         out.outcome,
		SealReason:      out.reason,
		StartedAt:       receipt.FormatTime(parseTime(rc.rec.StartedAt, e)),
		SealedAt:        receipt.FormatTime(e.Clock()),
		Runtime:         &receipt.Runtime{RunxVersion: e.RunxVersion},
		Children:        runstep.NonEmptyRefs(out.refs),
		Registry:        installed.ReceiptPackage(rc.pkg),
	}
	var result json.RawMessage
	if out.failure != nil {
		out.failure.Message = e.Taint.Scrub(out.failure.Message)
		body.ErrorCode = out.failure.Code
		if result, err = json.Marshal(out.failure); err != nil {
			return nil, receipt.ChildRef{}, err
		}
		result = e.Taint.ScrubJSON(result)
	} else {
		raw, err := canon.Canonical(out.result)
		if err != nil {
			return nil, receipt.ChildRef{}, err
		}
		raw = e.sealer().ScrubResult(raw)
		result = raw
		body.OutputDigest = canon.DigestBytes(raw)
	}
	r, raw, err := e.sealer().Sign(body)
	if err != nil {
		return nil, receipt.ChildRef{}, err
	}
	// With the journal as the store's write-ahead log, the root file is
	// written with no flush and no index line; the seal's commit logs it
	// (and any file not logged yet) and is the one barrier; only then is
	// the root indexed (filelog.go). Without it, the root's index line is
	// left for the seal's commit to make durable
	// (receipt.Store.PutRootIndexLater; repaired at Open if a power cut
	// loses it). A child's receipt is made durable by its root.
	var line journal.RootLine
	hint := int64(-1)
	switch {
	case rc.rec.ParentRunID != "":
		err = e.Store.Put(r, raw)
	case e.files != nil:
		hint, err = e.Store.PutRootLogged(r, raw)
	default:
		var mark receipt.IndexMark
		mark, err = e.Store.PutRootIndexLater(r, raw)
		if mark != (receipt.IndexMark{}) {
			line = journal.RootLine{Store: storeKey(e.Store), Flushed: mark.Flushed, End: mark.End}
		}
	}
	if err != nil {
		return nil, receipt.ChildRef{}, err
	}
	ref := receipt.SealedRef(r, raw)
	env := rc.envelope(out)
	env.Status, env.Outcome, env.SealReason, env.ReceiptID, env.Result, env.Error = contract.StatusSealed, out.outcome, out.reason, r.ID, result, out.failure
	if out.outcome == seal.OutcomeRefused && out.failure != nil {
		env.Refusal, env.Result = out.failure, e.producedResult(rc, out)
	}
	envJSON, _ := json.Marshal(env)
	e.hook("before_seal_commit")
	held := rc.held.Take()
	if err := e.Journal.SealIndexed(durable(ctx), rc.rec.RunID, out.outcome, out.reason, r.ID, envJSON, line, held...); err != nil {
		rc.held.Keep(held) // not committed: Held.Record tries them alone
		return nil, receipt.ChildRef{}, err
	}
	rc.held.SendProgress(ctx)
	if rc.rec.ParentRunID == "" && e.files != nil {
		// The seal is committed and its answer stands: a failure to index
		// the root or to flush leaves the rows in the log, and the next
		// flush or open restores what they hold.
		if e.Store.IndexRoot(r, hint) == nil {
			e.files.flushIfFull()
		}
	}
	return env, ref, nil
}

// producedResult is a refused run's result: what its steps produced, read
// as the method's result over the steps that succeeded, or null when they
// do not hold the method's declared outputs.
func (e *engine) producedResult(rc *runCtx, out *outcome) json.RawMessage {
	res, failure := rc.result(out)
	if failure != nil {
		return json.RawMessage("null")
	}
	raw, err := canon.Canonical(res)
	if err != nil {
		return json.RawMessage("null")
	}
	return e.sealer().ScrubResult(raw)
}

func (rc *runCtx) envelope(out *outcome) *contract.SkillRun {
	traceStatus := contract.TraceSucceeded
	switch {
	case out.state == drivePaused:
		traceStatus = contract.TracePaused
	case out.state == driveStopped:
		traceStatus = contract.TraceStopped
	case out.outcome != seal.OutcomeCompleted:
		traceStatus = contract.TraceFailed
	}
	steps := out.trace
	if steps == nil {
		steps = []contract.TraceStep{}
	}
	return &contract.SkillRun{
		Schema:        contract.SkillRunSchema,
		SkillName:     rc.pkg.Name,
		Method:        rc.method.Name,
		RunID:         rc.rec.RunID,
		Result:        json.RawMessage("null"),
		PackageDigest: rc.rec.PackageDigest,
		ClosureDigest: rc.rec.ClosureDigest,
		Trace:         &contract.Trace{Workflow: rc.pkg.Name + "#" + rc.method.Name, Status: traceStatus, Steps: steps},
	}
}

// pause seals a checkpoint: the requests the run waits on are recorded (in
// the run that asks each), and the envelope says what to answer and how.
func (e *engine) pause(ctx context.Context, rc *runCtx, out *outcome) (*contract.SkillRun, error) {
	byRun := map[string][]*journal.Request{}
	onlyApprovals := true
	var asked []contract.Request
	for _, p := range out.waiting {
		byRun[p.RunID] = append(byRun[p.RunID], &journal.Request{Address: p.Local, Kind: p.Kind, RequestDigest: p.RequestDigest, Payload: p.Payload})
		if p.Kind != contract.RequestApproval && p.Kind != contract.RequestQuestion {
			onlyApprovals = false
		}
		asked = append(asked, p.Request)
	}
	// A payload past 64 KiB is kept as a project artifact, durable before
	// the pause is recorded or reported (payloadartifact.go).
	requests, err := e.presentWaiting(out.waiting)
	if err != nil {
		return nil, err
	}
	// Every run on the path to a waiting request is paused too.
	if _, ok := byRun[rc.rec.RunID]; !ok {
		byRun[rc.rec.RunID] = nil
	}
	for runID, reqs := range byRun {
		answered := int64(0)
		if runID == rc.rec.RunID {
			// The root keeps what its tree's plugins answered, so the
			// bound on those bytes goes on counting from it at the resume.
			answered = rc.Budget.Answered.Load()
		}
		if err := e.Journal.PauseRoot(durable(ctx), runID, reqs, answered); err != nil {
			return nil, err
		}
	}
	for _, r := range out.refused {
		// A refused answer is never the run's, but why it was refused is:
		// history explains it as the envelope did.
		if err := e.Journal.AppendEvent(durable(ctx), rc.rec.RunID, "run", EventAnswerRefused, r); err != nil {
			return nil, err
		}
	}
	if err := e.pauseAncestors(ctx, byRun); err != nil {
		return nil, err
	}
	env := rc.envelope(out)
	env.Status = contract.StatusNeedsAgent
	if onlyApprovals && len(requests) > 0 {
		env.Status = contract.StatusNeedsApproval
	}
	env.Requests = requests
	env.RefusedAnswers = out.refused
	env.AnswersTemplate = readmodel.AnswersTemplate(asked)
	env.Resume = "runx resume " + rc.rec.RunID + " answers.json"
	return env, nil
}

// pauseAncestors marks every run between a waiting child and the root paused.
func (e *engine) pauseAncestors(ctx context.Context, byRun map[string][]*journal.Request) error {
	for runID := range byRun {
		for {
			r, err := e.Journal.GetRun(durable(ctx), runID)
			if err != nil || r.ParentRunID == "" {
				break
			}
			if _, done := byRun[r.ParentRunID]; done {
				break
			}
			if err := e.Journal.Pause(durable(ctx), r.ParentRunID, nil); err != nil {
				return err
			}
			runID = r.ParentRunID
		}
	}
	return nil
}

// stopped records where a signal left the run, so its record (and runx
// history) says stopped rather than running, and returns its envelope.
func (e *engine) stopped(ctx context.Context, rc *runCtx, out *outcome) (*contract.SkillRun, error) {
	if err := e.Journal.Stop(durable(ctx), rc.rec.RunID, rc.Budget.Answered.Load()); err != nil {
		return nil, err
	}
	env := rc.envelope(out)
	env.Status = contract.StatusStopped
	env.Resume = "runx resume " + rc.rec.RunID + " -   # with {} on stdin"
	return env, nil
}

// SealRefused seals a run whose preparation was refused after its package and
// method resolved, so the refusal is inspectable without echoing what was
// rejected.
func (e *engine) SealRefused(ctx context.Context, st Start, cause error) (*contract.SkillRun, error) {
	return e.sealRefusedAs(ctx, st, cause, seal.OutcomeBlocked)
}

// sealRefusedAs seals a run refused before any step ran.
func (e *engine) sealRefusedAs(ctx context.Context, st Start, cause error, as seal.Outcome) (*contract.SkillRun, error) {
	if stopping(ctx) {
		return nil, stoppedBeforeStart(cause)
	}
	st.Inputs = nil
	rec, err := e.newRecord(st, "", "")
	if err != nil {
		return nil, err
	}
	if err := e.Journal.CreateRun(durable(ctx), rec); err != nil {
		return nil, err
	}
	rc := newRunCtx(e, rec, st.Package, st.Method, nil, &runstate.Budget{Limit: 1, AnswerLimit: e.answerLimit()}, 0, "")
	env, _, err := e.sealRun(ctx, rc, &outcome{state: driveSealed, outcome: as, reason: seal.ReasonPreparationRefused, failure: contract.BodyOf(cause)})
	if env != nil {
		env.Trace = nil
	}
	return env, err
}

func mustCanonical(raw json.RawMessage) []byte {
	out, err := canon.CanonicalJSON(raw)
	if err != nil {
		return raw
	}
	return out
}

// parseTime reads a recorded time, the clock's now where it does not parse.
func parseTime(s string, e *engine) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return e.Clock()
	}
	return t
}
