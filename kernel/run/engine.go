package run

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/canon"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Invoker dispatches one capability call; the plugin host implements it.
type Invoker interface {
	Invoke(ctx context.Context, call *sdk.Call, maxOutput int64) (*sdk.Result, host.PluginRef, error)
}

// Engine runs methods. One Engine serves one kernel process.
type Engine struct {
	Host        Invoker
	Signer      *receipt.Signer
	Store       *receipt.Store
	Clock       func() time.Time
	RunxVersion string
	// Workspace is the absolute workspace root.
	Workspace string
	// LookupEnv reads the host environment for a process tool's declared
	// variables; nothing else of the host environment reaches a step.
	LookupEnv func(string) (string, bool)
}

// Start is a resolved, admitted request to run one method.
type Start struct {
	Package *pkg.Package
	Method  *pkg.Method
	Inputs  map[string]any
	Act     string
	RunID   string
}

// runState is one run in flight.
type runState struct {
	start     Start
	closure   string
	authority string
	startedAt time.Time
	outputs   map[string]any
	trace     []contract.TraceStep
	children  []receipt.ChildRef
	modules   *moduleFiles
}

// hostAuthority is what a run holds when no host states an authority: it
// means only that none was stated.
var hostAuthority = map[string]any{"effects": "allow", "reach": "inputs"}

// ClosureDigest binds a package to the runtime that runs it, so a
// continuation cannot silently cross a runx upgrade.
func ClosureDigest(runxVersion, packageDigest string) string {
	d, _ := canon.Digest(map[string]any{"runx_version": runxVersion, "package_digest": packageDigest})
	return d
}

// Run executes the method's steps in declared order and seals the run.
func (e *Engine) Run(ctx context.Context, st Start) (*contract.SkillRun, error) {
	if err := admit(st.Method); err != nil {
		return e.SealRefused(st, err)
	}
	r := &runState{
		start:     st,
		closure:   ClosureDigest(e.RunxVersion, st.Package.Digest),
		authority: mustDigest(hostAuthority),
		startedAt: e.Clock(),
		outputs:   map[string]any{},
		modules:   &moduleFiles{dir: st.Package.Dir},
	}
	sc := &scope{input: st.Inputs, steps: r.outputs, runID: st.RunID, act: st.Act}
	var failure *contract.ErrorBody
	outcome, reason := contract.OutcomeCompleted, ""
	for _, step := range st.Method.Steps {
		if err := ctx.Err(); err != nil {
			outcome, reason = contract.OutcomeKilled, contract.SealCancelled
			failure = &contract.ErrorBody{Code: "run_cancelled", Message: "the run was stopped before step " + step.ID}
			break
		}
		res, err := e.runStep(ctx, r, sc, step)
		if err != nil {
			return nil, err
		}
		r.trace = append(r.trace, res.trace)
		if res.trace.Status != contract.StepSuccess {
			failure = res.trace.Error
			outcome, reason = contract.OutcomeFailed, contract.SealStepFailed
			if res.trace.Status == contract.StepRefused {
				outcome, reason = contract.OutcomeRefused, contract.SealStepRefused
			}
			break
		}
		r.outputs[step.ID] = res.output
	}
	var result any
	if failure == nil {
		var err error
		result, err = selectResult(st.Method, r.outputs)
		if err != nil {
			failure = contract.BodyOf(err)
			outcome, reason = contract.OutcomeFailed, contract.SealStepFailed
		}
	}
	return e.sealRun(r, outcome, reason, result, failure)
}

type stepResult struct {
	output any
	trace  contract.TraceStep
}

func (e *Engine) sealRun(r *runState, outcome, reason string, result any, failure *contract.ErrorBody) (*contract.SkillRun, error) {
	st := r.start
	body := receipt.Body{
		Kind:            "run",
		RunID:           st.RunID,
		SkillName:       st.Package.Name,
		Method:          st.Method.Name,
		PackageDigest:   st.Package.Digest,
		ClosureDigest:   r.closure,
		AuthorityDigest: r.authority,
		InputsDigest:    mustDigest(st.Inputs),
		Outcome:         outcome,
		SealReason:      reason,
		StartedAt:       receipt.FormatTime(r.startedAt),
		SealedAt:        receipt.FormatTime(e.Clock()),
		Runtime:         &receipt.Runtime{RunxVersion: e.RunxVersion},
		Children:        r.children,
	}
	if failure != nil {
		body.ErrorCode = failure.Code
	}
	var resultJSON json.RawMessage = []byte("null")
	if failure == nil {
		raw, err := canon.Canonical(result)
		if err != nil {
			return nil, err
		}
		resultJSON = raw
		body.OutputDigest = canon.DigestBytes(raw)
	} else if failure != nil {
		resultJSON, _ = json.Marshal(failure)
	}
	rec, raw, err := e.Signer.Seal(body)
	if err != nil {
		return nil, err
	}
	if err := e.Store.PutRoot(rec, raw); err != nil {
		return nil, err
	}
	traceStatus := contract.TraceSucceeded
	if outcome != contract.OutcomeCompleted {
		traceStatus = contract.TraceFailed
	}
	steps := r.trace
	if steps == nil {
		steps = []contract.TraceStep{}
	}
	return &contract.SkillRun{
		Schema:     contract.SkillRunSchema,
		Status:     contract.StatusSealed,
		Outcome:    outcome,
		SealReason: reason,
		SkillName:  st.Package.Name,
		Method:     st.Method.Name,
		RunID:      st.RunID,
		ReceiptID:  rec.ID,
		Result:     resultJSON,
		Error:      failure,
		Trace:      &contract.Trace{Workflow: st.Package.Name + "#" + st.Method.Name, Status: traceStatus, Steps: steps},
	}, nil
}

// SealRefused seals a run whose preparation was refused after its package and
// method resolved, so the refusal is inspectable without echoing what was
// rejected.
func (e *Engine) SealRefused(st Start, cause error) (*contract.SkillRun, error) {
	r := &runState{
		start:     st,
		closure:   ClosureDigest(e.RunxVersion, st.Package.Digest),
		authority: mustDigest(hostAuthority),
		startedAt: e.Clock(),
	}
	if st.Inputs == nil {
		r.start.Inputs = map[string]any{}
	}
	env, err := e.sealRun(r, contract.OutcomeBlocked, contract.SealPreparationRefused, nil, contract.BodyOf(cause))
	if env != nil {
		env.Trace = nil
	}
	return env, err
}

func mustDigest(v any) string {
	d, err := canon.Digest(v)
	if err != nil {
		panic(errors.New("digest of a kernel-built value failed: " + err.Error()))
	}
	return d
}
