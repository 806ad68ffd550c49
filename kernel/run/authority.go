package run

import (
	"context"
	"path/filepath"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/kernel/run/script"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// refuseCertainChanges refuses, before any step runs, a run under effects
// none that is certain to change something, naming each step: its own
// process tools and writing capabilities, and the same in the closure of each
// skill it names.
func (rc *runCtx) refuseCertainChanges(ctx context.Context) error {
	var planned []authority.PlannedStep
	rc.plan(ctx, rc.pkg, rc.method, rc.Base, "", 0, &planned)
	return authority.RefuseCertain(planned)
}

func (rc *runCtx) plan(ctx context.Context, p *pkg.Package, m *pkg.Method, base authority.Effective, prefix string, depth int, into *[]authority.PlannedStep) {
	child := &runCtx{e: rc.e, pkg: p, method: m, Authority: runstate.Authority{Base: base}}
	for _, s := range m.Steps {
		eff := gate.Effective(child.Base, child.method, s)
		addr := prefix + s.ID
		if s.Kind == pkg.KindSkill && depth < 8 && rc.e.Resolver != nil {
			if cp, method, err := rc.e.Resolver.Resolve(p.Dir, s.Skill); err == nil {
				if cm, err := cp.SelectMethod(method); err == nil {
					rc.plan(ctx, cp, cm, authority.ForChild(eff), addr+">"+cp.Name+"#"+cm.Name+"/", depth+1, into)
				}
			}
			continue
		}
		if s.Kind == pkg.KindScript {
			// A script's own listed tools and operations are its own: each
			// counts as a step it may take, and each listed skill's closure
			// as the skill step's would.
			for _, call := range listedCalls(s) {
				caddr := addr + "/calls/" + callName(call)
				if call.Kind == pkg.KindSkill {
					if depth < 8 && rc.e.Resolver != nil {
						if cp, method, err := rc.e.Resolver.Resolve(p.Dir, call.Skill); err == nil {
							if cm, err := cp.SelectMethod(method); err == nil {
								rc.plan(ctx, cp, cm, authority.ForChild(eff), caddr+">"+cp.Name+"#"+cm.Name+"/", depth+1, into)
							}
						}
					}
					continue
				}
				*into = append(*into, authority.PlannedStep{Address: caddr, Authority: eff, Changes: []authority.Change{gate.ChangeOf(ctx, gatePort{child}, call)}})
			}
			continue
		}
		*into = append(*into, authority.PlannedStep{Address: addr, Authority: eff, Changes: []authority.Change{gate.ChangeOf(ctx, gatePort{child}, s)}})
	}
}

// listedCalls are the steps a script's calls name, each as the step a call
// of it runs as.
func listedCalls(s *pkg.Step) []*pkg.Step {
	if s.Script == nil || s.Script.Calls == nil {
		return nil
	}
	c := s.Script.Calls
	var out []*pkg.Step
	for _, t := range c.Tools {
		if call, err := script.CallStep(s, script.Pending{Tool: t}); err == nil {
			out = append(out, call)
		}
	}
	for _, o := range c.Operations {
		if call, err := script.CallStep(s, script.Pending{Tool: o}); err == nil {
			out = append(out, call)
		}
	}
	for _, sk := range c.Skills {
		if call, err := script.CallStep(s, script.Pending{Tool: "skill:" + sk}); err == nil {
			out = append(out, call)
		}
	}
	return out
}

// callName is how an address names a listed call.
func callName(call *pkg.Step) string {
	switch call.Kind {
	case pkg.KindSkill:
		return "skill:" + call.Skill
	case pkg.KindOperation:
		return call.Operation.Ref
	}
	return call.Tool.Capability
}

// floor decides a step's change before it is claimed. It returns nil when
// the step may run now; otherwise what the step settles as or waits on.
func (rc *runCtx) floor(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, extra map[string]any) *stepRun {
	change, ok := rc.inputChange(ctx, step, inputs)
	if !ok {
		change = gate.CallChange(ctx, gatePort{rc}, step, inputs)
	}
	if rc.TurnCall && gate.StoreWrite(ctx, gatePort{rc}, step) {
		// A turn's own call never writes to store, at any effects: the
		// floor refuses it saying so.
		change = authority.Change{Kind: authority.ChangeStoreWrite, FromTurn: true}
		if step.Operation != nil {
			change.Operation = step.Operation.Ref
		}
	}
	if change.Kind == authority.ChangeNone {
		return nil
	}
	dec := authority.Floor(gate.Effective(rc.Base, rc.method, step), change, rc.Standing)
	switch dec.Verdict {
	case authority.VerdictRefuse:
		body := rc.runner().StepBody(step, local)
		body.Extra = map[string]any{"floor": map[string]any{"verdict": dec.Verdict, "rule": dec.Rule}}
		r := rc.runner().Settle(ctx, step, local, body, contract.StepRefused, nil, contract.BodyOf(dec.Err()), nil)
		return &r
	case authority.VerdictAllow:
		if len(dec.Standing) > 0 {
			extra["admitted_by"] = rc.StandingNames(dec.Standing)
		}
		extra["floor"] = map[string]any{"verdict": dec.Verdict, "rule": dec.Rule}
		return nil
	}
	req, err := rc.floorRequest(ctx, step, local, inputs, dec)
	if err != nil {
		return &stepRun{Err: err}
	}
	d := rc.Decisions[local]
	if d == nil || d.RequestDigest != req.RequestDigest {
		return &stepRun{Waiting: []pending{{Request: req, RunID: rc.rec.RunID, Local: local}}}
	}
	v, err := gate.DecisionValue(d)
	if err != nil {
		return &stepRun{Err: err}
	}
	extra["floor"] = map[string]any{"verdict": dec.Verdict, "gate_type": dec.GateType, "rule": dec.Rule}
	extra["decision"] = map[string]any{"approved": v.Approved, "reason": v.Reason, "lane": contract.LaneApprovals, "request_digest": d.RequestDigest}
	if !d.Used {
		if err := rc.e.Journal.Asks().UseDecision(durable(ctx), rc.rec.RunID, local, nil); err != nil {
			return &stepRun{Err: err}
		}
	}
	if !v.Approved {
		body := rc.runner().StepBody(step, local)
		body.Extra = extra
		r := rc.runner().Settle(ctx, step, local, body, contract.StepRefused, nil, &contract.ErrorBody{Code: errcode.ApprovalDeclined, Message: "step " + step.ID + " was declined: " + v.Reason}, nil)
		return &r
	}
	return nil
}

// floorRequest is a gate of type tool carrying exactly what would execute.
func (rc *runCtx) floorRequest(ctx context.Context, step *pkg.Step, local string, inputs map[string]any, dec authority.Decision) (contract.Request, error) {
	payload := map[string]any{"step_id": step.ID, "gate": "floor", "gate_type": dec.GateType, "rule": dec.Rule}
	if step.Kind == pkg.KindCommand {
		c := step.Tool.Command
		argv := append([]string{c.Command}, c.Args...)
		names := append(append([]string{}, c.Environment.Required...), c.Environment.Optional...)
		cmd := map[string]any{"argv": argv, "line": gate.ShellQuote(argv), "cwd": rc.pkg.Dir, "environment": names}
		cmd["digest"] = mustDigest(cmd)
		payload["command"] = cmd
	} else if def := gate.ToolDefinition(ctx, gatePort{rc}, step); def != nil && def.Effect == sdk.EffectProcess && def.ArgvInput != "" {
		// A process capability's gate shows the exact argv it executes and
		// the directory it runs in: its first read path input, inside the
		// workspace.
		argv := native.Argv(def, inputs)
		cwd := ""
		if dirs := declaredPaths(def, orEmpty(inputs), sdk.PathRead); len(dirs) > 0 {
			cwd = dirs[0]
		}
		cmd := map[string]any{"argv": argv, "line": gate.ShellQuote(argv), "cwd": filepath.Join(rc.e.Workspace, cwd), "environment": []string{}}
		cmd["digest"] = mustDigest(cmd)
		payload["command"] = cmd
	} else if step.Kind == pkg.KindOperation {
		payload["operation"] = step.Operation.Ref
		payload["input"] = orEmpty(inputs)
	} else {
		payload["capability"] = step.Tool.Capability
		payload["input"] = orEmpty(inputs)
		if def := gate.ToolDefinition(ctx, gatePort{rc}, step); def != nil && def.Previews {
			// A previewing capability's gate carries exactly what executes:
			// each target with its complete diff and the digests it
			// replaces and becomes.
			p, err := rc.preview(ctx, step, step.Tool.Capability, inputs)
			if err != nil {
				return contract.Request{}, err
			}
			payload["edit"] = p
		}
	}
	return rc.asked(step, local).Bind(contract.RequestApproval, payload)
}
