package run

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/native"
	"github.com/runxhq/runx/kernel/run/runstate"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// ParseAuthority reads a host-stated authority; empty means none stated.
func ParseAuthority(raw []byte) (*authority.Authority, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	return authority.Parse(raw)
}

// CodeAuthorityRecordInvalid refuses a run whose recorded authority no
// longer parses: read as "none stated" it would run under the host's
// default, wider than what was stated.
const CodeAuthorityRecordInvalid = "authority_record_invalid"

// recordedAuthority reads the authority a run record holds (nil: none
// stated). A record that does not parse is an error, never "none stated".
func recordedAuthority(raw json.RawMessage) (*authority.Authority, error) {
	if len(raw) == 0 || bytes.Equal(raw, hostAuthority) {
		return nil, nil
	}
	a, err := authority.Parse(raw)
	if err != nil {
		return nil, contract.Errorf(CodeAuthorityRecordInvalid, "the run's recorded authority does not parse: %v", err)
	}
	return a, nil
}

// authorityDigest is the digest a receipt commits, or "" when no host
// stated an authority.
func authorityDigest(raw json.RawMessage) (string, error) {
	a, err := recordedAuthority(raw)
	if a == nil || err != nil {
		return "", err
	}
	d, err := a.Digest()
	if err != nil {
		return "", contract.Errorf(CodeAuthorityRecordInvalid, "the run's recorded authority has no digest: %v", err)
	}
	return d, nil
}

func layerOf(kind authority.LayerKind, name, effects, reach string) authority.Layer {
	l := authority.Layer{Kind: kind, Name: name}
	var err error
	// kernel/pkg admits only known values; one that does not parse narrows
	// to the least rather than leaving the layer unset (which narrows nothing).
	if effects != "" {
		if l.Effects, err = authority.ParseEffects(effects); err != nil {
			l.Effects = authority.EffectsNone
		}
	}
	if reach != "" {
		if l.Reach, err = authority.ParseReach(reach); err != nil {
			l.Reach = authority.ReachInputs
		}
	}
	return l
}

// effective is the authority one step runs under: the narrowest of what this
// run holds (its host's, or for a child what its step held), its method's and
// its own.
func (rc *runCtx) effective(step *pkg.Step) authority.Effective {
	return rc.Base.Then(
		layerOf(authority.LayerMethod, rc.method.Name, rc.method.Effects, rc.method.Reach),
		layerOf(authority.LayerStep, step.ID, step.Effects, step.Reach),
	)
}

// changeOf is what a step would change, for the floor: a process tool runs
// its exact argv; a capability changes what its effect class says; modules,
// gates and reads change nothing; a skill's child decides for itself.
func (rc *runCtx) changeOf(ctx context.Context, step *pkg.Step) authority.Change {
	switch step.Kind {
	case pkg.KindCommand:
		c := step.Tool.Command
		return authority.Change{Kind: authority.ChangeCommand, Argv: append([]string{c.Command}, c.Args...)}
	case pkg.KindOperation:
		def := rc.operationDefinition(ctx, step)
		switch {
		case def != nil && (def.Effect == sdk.EffectNone || def.Effect == sdk.EffectRead):
			return authority.Change{Kind: authority.ChangeNone}
		case def != nil && def.HasRole(sdk.RoleDataOperation):
			// A data operation writes a package's own store state, which is
			// exempt unless its step carries an approval.
			return authority.Change{Kind: authority.ChangeStoreWrite, Operation: step.Operation.Ref, OwnStore: true, OwnApproval: step.Operation.Approval != nil}
		}
		// Any other connector write (or an unknown one) is an operation
		// write, failing closed.
		// An operation whose approval its effect owns (its step asks, or
		// its connector requires one) is gated there, once.
		own := step.Operation.Approval != nil || def != nil && def.Approval == sdk.ApprovalRequired
		return authority.Change{Kind: authority.ChangeOperationWrite, Operation: step.Operation.Ref, OwnApproval: own}
	case pkg.KindTool:
		if native.Lookup(step.Tool.Capability) != nil {
			return authority.Change{Kind: authority.ChangeNone}
		}
		effect := rc.e.capabilityEffect(ctx, step.Tool.Capability)
		switch effect {
		case sdk.EffectNone, sdk.EffectRead:
			return authority.Change{Kind: authority.ChangeNone}
		case sdk.EffectProcess:
			return authority.Change{Kind: authority.ChangeCommand}
		default:
			// write, or unknown: fail closed as an edit of unknown paths.
			return authority.Change{Kind: authority.ChangeEdit}
		}
	}
	return authority.Change{Kind: authority.ChangeNone}
}

// storeWrite reports whether a step's capability describes itself as a
// store write: role data.operation with an effect other than read or none,
// whether the step names it as an operation or as a tool.
func (rc *runCtx) storeWrite(ctx context.Context, step *pkg.Step) bool {
	var def *sdk.Definition
	switch step.Kind {
	case pkg.KindOperation:
		def = rc.operationDefinition(ctx, step)
	case pkg.KindTool:
		def = rc.toolDefinition(ctx, step)
	}
	return def != nil && def.HasRole(sdk.RoleDataOperation) && def.Effect != sdk.EffectRead && def.Effect != sdk.EffectNone
}

// toolDefinition is the description of a tool step's capability, or nil.
func (rc *runCtx) toolDefinition(ctx context.Context, step *pkg.Step) *sdk.Definition {
	if step.Kind != pkg.KindTool || step.Tool == nil || step.Tool.Capability == "" {
		return nil
	}
	return rc.e.definition(ctx, step.Tool.Capability)
}

// capabilityEffect reads a capability's declared effect from its plugin.
func (e *engine) capabilityEffect(ctx context.Context, id string) string {
	if def := e.definition(ctx, id); def != nil {
		return def.Effect
	}
	return sdk.EffectWrite
}

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
		eff := child.effective(s)
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
				*into = append(*into, authority.PlannedStep{Address: caddr, Authority: eff, Changes: []authority.Change{child.changeOf(ctx, call)}})
			}
			continue
		}
		*into = append(*into, authority.PlannedStep{Address: addr, Authority: eff, Changes: []authority.Change{child.changeOf(ctx, s)}})
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
		if call, err := scriptCallStep(s, scriptPending{Tool: t}); err == nil {
			out = append(out, call)
		}
	}
	for _, o := range c.Operations {
		if call, err := scriptCallStep(s, scriptPending{Tool: o}); err == nil {
			out = append(out, call)
		}
	}
	for _, sk := range c.Skills {
		if call, err := scriptCallStep(s, scriptPending{Tool: "skill:" + sk}); err == nil {
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
		change = rc.changeOf(ctx, step)
	}
	if rc.TurnCall && rc.storeWrite(ctx, step) {
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
	dec := authority.Floor(rc.effective(step), change, rc.Standing)
	switch dec.Verdict {
	case authority.VerdictRefuse:
		body := rc.stepBody(step, local)
		body.Extra = map[string]any{"floor": map[string]any{"verdict": dec.Verdict, "rule": dec.Rule}}
		r := rc.settle(ctx, step, local, body, contract.StepRefused, nil, contract.BodyOf(dec.Err()), nil)
		return &r
	case authority.VerdictAllow:
		if len(dec.Standing) > 0 {
			extra["admitted_by"] = rc.standingNames(dec.Standing)
		}
		extra["floor"] = map[string]any{"verdict": dec.Verdict, "rule": dec.Rule}
		return nil
	}
	req, err := rc.floorRequest(ctx, step, local, inputs, dec)
	if err != nil {
		return &stepRun{err: err}
	}
	d := rc.Decisions[local]
	if d == nil || d.RequestDigest != req.RequestDigest {
		return &stepRun{waiting: []pending{{Request: req, runID: rc.rec.RunID, local: local}}}
	}
	v, err := decisionValue(d)
	if err != nil {
		return &stepRun{err: err}
	}
	extra["floor"] = map[string]any{"verdict": dec.Verdict, "gate_type": dec.GateType, "rule": dec.Rule}
	extra["decision"] = map[string]any{"approved": v.Approved, "reason": v.Reason, "lane": contract.LaneApprovals, "request_digest": d.RequestDigest}
	if !d.Used {
		if err := rc.e.Journal.UseDecision(durable(ctx), rc.rec.RunID, local, nil); err != nil {
			return &stepRun{err: err}
		}
	}
	if !v.Approved {
		body := rc.stepBody(step, local)
		body.Extra = extra
		r := rc.settle(ctx, step, local, body, contract.StepRefused, nil, &contract.ErrorBody{Code: contract.SealApprovalDeclined, Message: "step " + step.ID + " was declined: " + v.Reason}, nil)
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
		cmd := map[string]any{"argv": argv, "line": shellQuote(argv), "cwd": rc.pkg.Dir, "environment": names}
		cmd["digest"] = mustDigest(cmd)
		payload["command"] = cmd
	} else if def := rc.toolDefinition(ctx, step); def != nil && def.Effect == sdk.EffectProcess && def.ArgvInput != "" {
		// A process capability's gate shows the exact argv it executes and
		// the directory it runs in: its first read path input, inside the
		// workspace.
		argv := native.Argv(def, inputs)
		cwd := ""
		if dirs := declaredPaths(def, orEmpty(inputs), sdk.PathRead); len(dirs) > 0 {
			cwd = dirs[0]
		}
		cmd := map[string]any{"argv": argv, "line": shellQuote(argv), "cwd": filepath.Join(rc.e.Workspace, cwd), "environment": []string{}}
		cmd["digest"] = mustDigest(cmd)
		payload["command"] = cmd
	} else if step.Kind == pkg.KindOperation {
		payload["operation"] = step.Operation.Ref
		payload["input"] = orEmpty(inputs)
	} else {
		payload["capability"] = step.Tool.Capability
		payload["input"] = orEmpty(inputs)
		if def := rc.toolDefinition(ctx, step); def != nil && def.Previews {
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
	return rc.bindRequest(step, local, contract.RequestApproval, payload)
}

func shellQuote(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

func (rc *runCtx) standingNames(idx []int) []map[string]any {
	out := make([]map[string]any, 0, len(idx))
	for _, i := range idx {
		if i >= 0 && i < len(rc.Standing) {
			out = append(out, map[string]any{"index": i, "kind": rc.Standing[i].Kind()})
		}
	}
	return out
}
