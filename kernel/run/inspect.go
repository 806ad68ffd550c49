package run

import (
	"context"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/readmodel"
	"github.com/runxhq/runx/kernel/run/runstate"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// What `runx skill inspect` prints is the read model's
// (kernel/run/readmodel/inspect.go).
const InspectionSchema = readmodel.InspectionSchema

type (
	Inspection    = readmodel.Inspection
	InspectedStep = readmodel.InspectedStep
	OwnApproval   = readmodel.OwnApproval
)

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
	out.Steps = readmodel.Inspect(ctx, inspectPort{rc}, "", 0)
	if err := rc.refuseCertainChanges(ctx); err != nil {
		out.RefusedAtStart = contract.BodyOf(err)
	}
	return out, nil
}

// inspectPort is a method of rc as readmodel.Inspect reads it.
type inspectPort struct{ rc *runCtx }

func (p inspectPort) Method() *pkg.Method { return p.rc.method }

func (p inspectPort) Effective(step *pkg.Step) authority.Effective {
	return gate.Effective(p.rc.Base, p.rc.method, step)
}

func (p inspectPort) Standing() []authority.StandingApproval { return p.rc.Standing }

func (p inspectPort) Calls(step *pkg.Step) []readmodel.ListedCall {
	var out []readmodel.ListedCall
	for _, call := range listedCalls(step) {
		out = append(out, readmodel.ListedCall{Step: call, Name: callName(call)})
	}
	return out
}

func (p inspectPort) Change(ctx context.Context, step *pkg.Step) authority.Change {
	return gate.ChangeOf(ctx, gatePort(p), step)
}

func (p inspectPort) Approval(step *pkg.Step) *OwnApproval {
	rc := p.rc
	if a := step.Operation.Approval; a != nil {
		return &OwnApproval{Gate: GateOperation, Reason: a.Reason, Type: a.Type}
	}
	if mo := rc.manifests.Of(rc.pkg, step, rc.e.addedConnectors()); mo != nil && mo.Op.Approval == sdk.ApprovalRequired {
		// Its connector requires one: the runtime asks it, with the
		// operator summary it builds.
		return &OwnApproval{Gate: GateOperation, Reason: "connector " + mo.Connector.ID + " requires approval of every " + mo.Op.Name}
	}
	return nil
}

func (p inspectPort) Cost(ctx context.Context, step *pkg.Step) (*sdk.Cost, *contract.ErrorBody) {
	var cost *sdk.Cost
	if def := p.rc.money().Run.Definition(ctx, step); def != nil {
		cost = def.Cost
	}
	return cost, p.rc.money().AdmitQuote(ctx, step)
}

func (p inspectPort) Child(step *pkg.Step, eff authority.Effective) (readmodel.Inspected, string) {
	rc := p.rc
	if rc.e.Resolver == nil {
		return nil, ""
	}
	cp, method, err := rc.e.Resolver.Resolve(rc.pkg.Dir, step.Skill)
	if err != nil {
		return nil, ""
	}
	cm, err := cp.SelectMethod(method)
	if err != nil {
		return nil, ""
	}
	child := &runCtx{e: rc.e, pkg: cp, method: cm, Authority: runstate.Authority{Base: eff, Standing: rc.Standing}}
	return inspectPort{child}, cp.Name + "#" + cm.Name + "/"
}
