package readmodel

import (
	"context"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
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

// OwnApproval is an operation step's own approval as inspection shows it.
type OwnApproval struct {
	Gate   string `json:"gate"`
	Reason string `json:"reason"`
	Type   string `json:"type,omitempty"`
}

// Inspected is a method as an inspection reads it: the port the engine
// satisfies (kernel/run/inspect.go). Nothing it answers runs anything.
type Inspected interface {
	// Method is the method inspected.
	Method() *pkg.Method
	// Effective is the authority a step of it runs under; Standing are the
	// standing approvals in force.
	Effective(step *pkg.Step) authority.Effective
	Standing() []authority.StandingApproval
	// Calls are the steps a script step's listed calls run as, each with
	// the name its address gives it.
	Calls(step *pkg.Step) []ListedCall
	// Change is what a step would change, for the floor.
	Change(ctx context.Context, step *pkg.Step) authority.Change
	// Approval is an operation step's own approval, or nil.
	Approval(step *pkg.Step) *OwnApproval
	// Cost is what a step's capability declares its provider charges per
	// call, and the refusal the run's money limit would make of its quote.
	Cost(ctx context.Context, step *pkg.Step) (*sdk.Cost, *contract.ErrorBody)
	// Child is the method a skill step starts, under the authority eff the
	// step hands it, and the prefix of its steps' addresses; nil when the
	// skill does not resolve.
	Child(step *pkg.Step, eff authority.Effective) (Inspected, string)
}

// ListedCall is one call a script step lists, as the step it runs as.
type ListedCall struct {
	Step *pkg.Step
	Name string
}

// Inspect decides, step by step, what the floor would do of m's steps
// under their authority, without running anything; a skill step's child
// method is read to depth 8.
func Inspect(ctx context.Context, m Inspected, prefix string, depth int) []InspectedStep {
	var steps []InspectedStep
	for _, s := range m.Method().Steps {
		eff := m.Effective(s)
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
			for _, lc := range m.Calls(s) {
				call := lc.Step
				cs := InspectedStep{Address: is.Address + "/calls/" + lc.Name, Kind: string(call.Kind), Skill: call.Skill, Authority: eff}
				if call.Tool != nil {
					cs.Capability = call.Tool.Capability
				}
				if call.Kind == pkg.KindSkill {
					is.Children = append(is.Children, cs)
					continue
				}
				cs.Change = m.Change(ctx, call)
				if cs.Change.Kind != authority.ChangeNone {
					d := authority.Floor(eff, cs.Change, m.Standing())
					cs.Floor = &d
				}
				is.Children = append(is.Children, cs)
			}
		case pkg.KindOperation:
			if is.Approval = m.Approval(s); is.Approval != nil {
				is.Waits = contract.StatusNeedsApproval
			}
		case pkg.KindSkill:
			if depth < 8 {
				if child, prefix := m.Child(s, authority.ForChild(eff)); child != nil {
					is.Children = Inspect(ctx, child, is.Address+">"+prefix, depth+1)
				}
			}
		}
		if s.Kind == pkg.KindOperation || s.Kind == pkg.KindTool {
			is.Cost, is.CostRefused = m.Cost(ctx, s)
		}
		is.Change = m.Change(ctx, s)
		if is.Change.Kind != authority.ChangeNone {
			d := authority.Floor(eff, is.Change, m.Standing())
			is.Floor = &d
		}
		steps = append(steps, is)
	}
	return steps
}
