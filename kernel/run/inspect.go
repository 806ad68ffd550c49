package run

import (
	"context"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/runstate"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// InspectionSchema names what `runx skill inspect --json` prints.
const InspectionSchema = "runx.skill_inspection.v1"

// Inspection is a method as it would run, under a stated authority, with
// nothing run.
type Inspection struct {
	Schema          string              `json:"schema"`
	SkillName       string              `json:"skill_name"`
	Method          string              `json:"method"`
	Description     string              `json:"description"`
	PackageDigest   string              `json:"package_digest"`
	ClosureDigest   string              `json:"closure_digest"`
	AuthorityDigest string              `json:"authority_digest,omitempty"`
	Inputs          []*pkg.InputSpec    `json:"inputs"`
	Outputs         any                 `json:"outputs,omitempty"`
	Steps           []InspectedStep     `json:"steps"`
	RefusedAtStart  *contract.ErrorBody `json:"refused_at_start,omitempty"`
}

// InspectedStep is one step: what it may change and what the floor decides.
type InspectedStep struct {
	Address    string              `json:"address"`
	Kind       string              `json:"kind"`
	Capability string              `json:"capability,omitempty"`
	Skill      string              `json:"skill,omitempty"`
	Guard      string              `json:"when,omitempty"`
	ForEach    string              `json:"for_each,omitempty"`
	Authority  authority.Effective `json:"authority"`
	Change     authority.Change    `json:"change"`
	Floor      *authority.Decision `json:"floor,omitempty"`
	Waits      contract.RunStatus  `json:"waits,omitempty"`
	// Approval is an operation's own approval: the step asks one human
	// decision before dispatch under every authority.
	Approval *OwnApproval `json:"approval,omitempty"`
	// Cost is what the capability declares its provider charges per call,
	// as its description states it; CostRefused is the refusal the run's
	// money limit would make of its quote (an unknown price).
	Cost        *sdk.Cost           `json:"cost,omitempty"`
	CostRefused *contract.ErrorBody `json:"cost_refused,omitempty"`
	// Calls are what a script step lists: they count in the effects: none
	// start check as the step's own.
	Calls    *pkg.Calls      `json:"calls,omitempty"`
	Children []InspectedStep `json:"children,omitempty"`
	// Outputs are the step's declared outputs, each with its packet.
	Outputs map[string]*pkg.OutputSpec `json:"outputs,omitempty"`
}

// Inspect resolves a skill's method and decides, step by step, what the
// floor would do under the request's authority, without running anything.
func (k *Kernel) Inspect(ctx context.Context, req SkillRequest) (*Inspection, error) {
	path, method := pkg.SplitRef(req.Ref)
	if req.Method != "" {
		method = req.Method
	}
	path = k.locate(path)
	p, err := pkg.Load(path, k.LoadOptions())
	if err != nil {
		return nil, err
	}
	m, err := p.SelectMethod(method)
	if err != nil {
		return nil, err
	}
	a, err := ParseAuthority(req.Authority)
	if err != nil {
		return nil, err
	}
	if req.Inputs.HasDocument || len(req.Inputs.Pairs) > 0 || len(req.Inputs.JSONPairs) > 0 {
		if _, err := pkg.BindInputs(m, req.Inputs); err != nil {
			return nil, err
		}
	}
	out := &Inspection{
		Schema: InspectionSchema, SkillName: p.Name, Method: m.Name, Description: m.Description,
		PackageDigest: p.Digest, ClosureDigest: k.engine.closureOf(p),
		Inputs: m.Inputs, Steps: []InspectedStep{},
	}
	if len(m.Outputs) > 0 {
		out.Outputs = m.Outputs
	}
	if a != nil {
		if out.AuthorityDigest, err = a.Digest(); err != nil {
			return nil, err
		}
	}
	rc := &runCtx{e: k.engine, pkg: p, method: m, Authority: runstate.Authority{Base: authority.Narrow(a.Layer()), Standing: a.Standing()}}
	out.Steps = rc.inspect(ctx, "", 0)
	if err := rc.refuseCertainChanges(ctx); err != nil {
		out.RefusedAtStart = contract.BodyOf(err)
	}
	return out, nil
}

func (rc *runCtx) inspect(ctx context.Context, prefix string, depth int) []InspectedStep {
	var steps []InspectedStep
	for _, s := range rc.method.Steps {
		eff := gate.Effective(rc.Base, rc.method, s)
		is := InspectedStep{Address: prefix + s.ID, Kind: string(s.Kind), Skill: s.Skill, Guard: s.When, ForEach: s.ForEach, Authority: eff, Outputs: s.Outputs}
		if s.Tool != nil {
			is.Capability = s.Tool.Capability
		}
		switch s.Kind {
		case pkg.KindAgent:
			is.Waits = contract.StatusNeedsAgent
		case pkg.KindAsk:
			is.Waits = contract.StatusNeedsApproval
		case pkg.KindScript:
			is.Calls = s.Script.Calls
			for _, call := range listedCalls(s) {
				cs := InspectedStep{Address: is.Address + "/calls/" + callName(call), Kind: string(call.Kind), Skill: call.Skill, Authority: eff}
				if call.Tool != nil {
					cs.Capability = call.Tool.Capability
				}
				if call.Kind == pkg.KindSkill {
					is.Children = append(is.Children, cs)
					continue
				}
				cs.Change = gate.ChangeOf(ctx, gatePort{rc}, call)
				if cs.Change.Kind != authority.ChangeNone {
					d := authority.Floor(eff, cs.Change, rc.Standing)
					cs.Floor = &d
				}
				is.Children = append(is.Children, cs)
			}
		case pkg.KindOperation:
			if a := s.Operation.Approval; a != nil {
				is.Approval = &OwnApproval{Gate: GateOperation, Reason: a.Reason, Type: a.Type}
				is.Waits = contract.StatusNeedsApproval
			} else if mo := rc.manifests.Of(rc.pkg, s, rc.e.addedConnectors()); mo != nil && mo.Op.Approval == sdk.ApprovalRequired {
				// Its connector requires one: the runtime asks it, with
				// the operator summary it builds.
				is.Approval = &OwnApproval{Gate: GateOperation, Reason: "connector " + mo.Connector.ID + " requires approval of every " + mo.Op.Name}
				is.Waits = contract.StatusNeedsApproval
			}
		case pkg.KindSkill:
			if depth < 8 && rc.e.Resolver != nil {
				if cp, method, err := rc.e.Resolver.Resolve(rc.pkg.Dir, s.Skill); err == nil {
					if cm, err := cp.SelectMethod(method); err == nil {
						child := &runCtx{e: rc.e, pkg: cp, method: cm, Authority: runstate.Authority{Base: authority.ForChild(eff), Standing: rc.Standing}}
						is.Children = child.inspect(ctx, is.Address+">"+cp.Name+"#"+cm.Name+"/", depth+1)
					}
				}
			}
		}
		if s.Kind == pkg.KindOperation || s.Kind == pkg.KindTool {
			if def := rc.money().Run.Definition(ctx, s); def != nil {
				is.Cost = def.Cost
			}
			is.CostRefused = rc.money().AdmitQuote(ctx, s)
		}
		is.Change = gate.ChangeOf(ctx, gatePort{rc}, s)
		if is.Change.Kind != authority.ChangeNone {
			d := authority.Floor(eff, is.Change, rc.Standing)
			is.Floor = &d
		}
		steps = append(steps, is)
	}
	return steps
}

// OwnApproval is an operation step's own approval as inspection shows it.
type OwnApproval struct {
	Gate   string `json:"gate"`
	Reason string `json:"reason"`
	Type   string `json:"type,omitempty"`
}
