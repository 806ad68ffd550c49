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

// Execution classes recorded in step receipts: an honest account of what ran
// the step, never a confinement claim.
const (
	execNative        = "native"
	execModule        = "deterministic_module"
	execTrustedHost   = "trusted_host_process"
	capabilityModule  = "js.module"
	capabilityProcess = "process.run"
)

// admit refuses, before any step runs, a method with a step kind this runx
// cannot execute yet, naming each.
func admit(m *pkg.Method) error {
	for _, s := range m.Steps {
		switch s.Kind {
		case pkg.KindTool, pkg.KindModule, pkg.KindCommand:
		default:
			return contract.Errorf("step_kind_unsupported", "step %s is a %s step, which this runx (%s) does not run yet; no step was started", s.ID, s.Kind, "0.1")
		}
	}
	return nil
}

// dispatch is what one step sends to a capability and how it is recorded.
type dispatch struct {
	capability string
	execution  string
	input      any
	timeout    time.Duration
	maxOutput  int64
	// interpret turns the capability's raw output into the step's output.
	interpret func(raw []byte, body *receipt.Body) (any, *contract.ErrorBody)
}

func (e *Engine) runStep(ctx context.Context, r *runState, sc *scope, step *pkg.Step) (*stepResult, error) {
	started := e.Clock()
	body := receipt.Body{
		Kind:          "step",
		RunID:         r.start.RunID,
		SkillName:     r.start.Package.Name,
		Method:        r.start.Method.Name,
		StepID:        step.ID,
		StepKind:      string(step.Kind),
		PackageDigest: r.start.Package.Digest,
		ClosureDigest: r.closure,
		StartedAt:     receipt.FormatTime(started),
		Runtime:       &receipt.Runtime{RunxVersion: e.RunxVersion},
	}
	inputs, err := stepInputs(step, sc)
	var output any
	var failure *contract.ErrorBody
	status := contract.StepSuccess
	if err != nil {
		failure, status = contract.BodyOf(err), contract.StepFailed
	} else {
		body.InputsDigest = mustDigest(inputs)
		output, failure, status = e.execute(ctx, r, step, inputs, &body)
	}
	if failure == nil {
		if err := checkOutputs(step.ID, step.Outputs, output); err != nil {
			failure, status = contract.BodyOf(err), contract.StepFailed
		}
	}
	body.Outcome = contract.OutcomeCompleted
	switch status {
	case contract.StepFailed:
		body.Outcome, body.ErrorCode = contract.OutcomeFailed, failure.Code
	case contract.StepRefused:
		body.Outcome, body.ErrorCode = contract.OutcomeRefused, failure.Code
	default:
		raw, err := canon.Canonical(output)
		if err != nil {
			return nil, err
		}
		body.OutputDigest = canon.DigestBytes(raw)
	}
	body.SealedAt = receipt.FormatTime(e.Clock())
	rec, raw, err := e.Signer.Seal(body)
	if err != nil {
		return nil, err
	}
	if err := e.Store.Put(rec, raw); err != nil {
		return nil, err
	}
	ref, err := receipt.ChildRefOf(raw)
	if err != nil {
		return nil, err
	}
	r.children = append(r.children, ref)
	return &stepResult{output: output, trace: contract.TraceStep{
		StepID: step.ID, Skill: traceKind(step), Status: status, ReceiptID: rec.ID, Error: failure,
	}}, nil
}

func traceKind(step *pkg.Step) string {
	if step.Kind == pkg.KindTool && step.Tool != nil {
		return step.Tool.Capability
	}
	return string(step.Kind)
}

// stepInputs materialises a step's inputs once. A step that declares none
// receives the method's inputs whole.
func stepInputs(step *pkg.Step, sc *scope) (map[string]any, error) {
	if step.Inputs == nil {
		return sc.input, nil
	}
	return materialize(step.ID, step.Inputs, sc)
}

func (e *Engine) execute(ctx context.Context, r *runState, step *pkg.Step, inputs map[string]any, body *receipt.Body) (any, *contract.ErrorBody, string) {
	var d *dispatch
	var err error
	switch step.Kind {
	case pkg.KindModule:
		d, err = e.moduleDispatch(r, step, inputs)
	case pkg.KindCommand:
		d, err = e.commandDispatch(r, step, inputs)
	default:
		d = &dispatch{capability: step.Tool.Capability, execution: execNative, input: inputs, timeout: stepTimeout(step, 60*time.Second), interpret: decodeOutput}
	}
	if err != nil {
		return nil, contract.BodyOf(err), contract.StepRefused
	}
	body.Capability, body.Execution = d.capability, d.execution
	input, err := canon.Canonical(d.input)
	if err != nil {
		return nil, &contract.ErrorBody{Code: "step_input_invalid", Message: err.Error()}, contract.StepRefused
	}
	callCtx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	clock := e.Clock()
	res, ref, err := e.Host.Invoke(callCtx, &sdk.Call{
		Capability: d.capability,
		Input:      input,
		Context: sdk.Context{
			RunID:         r.start.RunID,
			StepAddress:   step.ID,
			CallID:        r.start.RunID + "#" + step.ID + "@1",
			Attempt:       1,
			WorkspaceRoot: e.Workspace,
			PackageRoot:   r.start.Package.Dir,
			Reach:         "inputs",
			Clock:         clock,
		},
	}, d.maxOutput)
	if ref.Name != "" {
		body.Runtime.Plugin = &receipt.PluginRef{Name: ref.Name, Version: ref.Version, Protocol: ref.Protocol}
	}
	if err != nil {
		var he *host.Error
		if errors.As(err, &he) {
			return nil, &contract.ErrorBody{Code: he.Code, Message: he.Message}, contract.StepFailed
		}
		return nil, &contract.ErrorBody{Code: host.CodePluginTransport, Message: err.Error()}, contract.StepFailed
	}
	switch res.Status {
	case sdk.StatusOK:
	case sdk.StatusRefused:
		return nil, &contract.ErrorBody{Code: res.Code, Message: res.Message}, contract.StepRefused
	default:
		return nil, &contract.ErrorBody{Code: res.Code, Message: res.Message}, contract.StepFailed
	}
	out, failure := d.interpret(res.Output, body)
	if failure != nil {
		return nil, failure, contract.StepFailed
	}
	return out, nil, contract.StepSuccess
}

func decodeOutput(raw []byte, _ *receipt.Body) (any, *contract.ErrorBody) {
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, &contract.ErrorBody{Code: "capability_output_invalid", Message: "the capability answered with output that is not JSON"}
	}
	return out, nil
}

func stepTimeout(step *pkg.Step, def time.Duration) time.Duration {
	if step.TimeoutSeconds > 0 {
		return time.Duration(step.TimeoutSeconds) * time.Second
	}
	return def
}
