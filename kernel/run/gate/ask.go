package gate

import (
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/canon"
)

// Asked is where a request is asked from: its run, the unit's address in
// it (Local) and from the root of its tree (Address), and the step that
// asks.
type Asked struct {
	RunID, Local, Address, StepID string
}

// Bind binds a request by digest to its run, its address and its exact
// content.
func (a Asked) Bind(kind contract.RequestKind, payload map[string]any) (contract.Request, error) {
	raw, err := canon.Canonical(payload)
	if err != nil {
		return contract.Request{}, err
	}
	payloadDigest := canon.DigestBytes(raw)
	digest, err := canon.Digest(map[string]any{
		"run_id": a.RunID, "address": a.Local, "kind": string(kind), "payload_digest": payloadDigest,
	})
	if err != nil {
		return contract.Request{}, err
	}
	return contract.Request{
		Address:       a.Address,
		Kind:          kind,
		RequestDigest: digest,
		Payload:       raw,
		Summary:       contract.RequestSummary{PayloadDigest: payloadDigest, StepID: a.StepID},
	}, nil
}

// Ask is what an agent or ask step of package p asks, bound at a: an
// agent step its turn (the task, the package's manual, the inputs and the
// outputs it must give, and the fields extra the engine adds, its context
// skills), an ask step its questions or its approval.
func Ask(a Asked, p *pkg.Package, step *pkg.Step, inputs, extra map[string]any) (contract.Request, error) {
	var kind contract.RequestKind
	var payload map[string]any
	switch {
	case step.Kind == pkg.KindAgent:
		if inputs == nil {
			inputs = map[string]any{}
		}
		kind = contract.RequestAgent
		payload = map[string]any{
			"step_id":       step.ID,
			"skill":         p.Name,
			"task":          step.Agent.Task,
			"manual_digest": p.ManualDigest,
			"inputs":        inputs,
			"outputs":       outputContract(step.Outputs),
		}
		if step.Agent.Calls != nil {
			payload["calls"] = step.Agent.Calls
		}
		for k, v := range extra {
			payload[k] = v
		}
	case len(step.Ask.Questions) > 0:
		kind = contract.RequestQuestion
		payload = map[string]any{"step_id": step.ID, "questions": step.Ask.Questions}
	default:
		kind = contract.RequestApproval
		payload = map[string]any{"step_id": step.ID, "gate": "ask", "reason": step.Ask.Reason}
	}
	return a.Bind(kind, payload)
}

func outputContract(outputs map[string]*pkg.OutputSpec) map[string]any {
	out := map[string]any{}
	for name, spec := range outputs {
		out[name] = spec
	}
	return out
}
