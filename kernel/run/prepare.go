package run

import (
	"context"
	"errors"
	"github.com/runxhq/runx/kernel/packet"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/guard"
	"github.com/runxhq/runx/kernel/run/native"
	"github.com/runxhq/runx/kernel/run/skillctx"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Step kinds this runx executes.
var runnableKinds = map[pkg.StepKind]bool{
	pkg.KindTool: true, pkg.KindModule: true, pkg.KindCommand: true,
	pkg.KindSkill: true, pkg.KindAgent: true, pkg.KindAsk: true, pkg.KindOperation: true, pkg.KindScript: true,
}

// prepare checks a method before any of its steps runs: every step is of a
// kind this runx executes and resolves to what it names (a tool some plugin
// describes, a connector operation, a child skill, each tool, operation and
// skill a turn's or a script's calls list), every guard compiles, every
// result producer declares its outputs, and no two producers emit the same
// key unless their guards are exclusive. A step a guard may skip is held
// to all of it: a mistake in a branch that seldom runs is still a mistake.
func (e *engine) prepare(ctx context.Context, p *pkg.Package, m *pkg.Method, v *connector.Verified) error {
	pr := &preparation{e: e, seen: map[string]bool{}, verified: v}
	return pr.closure(ctx, p, m, 0)
}

// preparation is one walk of preparation over a method's closure, with
// the methods it has already prepared and the run's verified connectors.
type preparation struct {
	e        *engine
	seen     map[string]bool
	verified *connector.Verified
}

// closure prepares a method and, before any step runs, every method
// its skill steps and call lists name, so a child's key collision,
// unsupported field or unresolvable ref is refused before the parent's
// first effect rather than after it.
func (pr *preparation) closure(ctx context.Context, p *pkg.Package, m *pkg.Method, depth int) error {
	e := pr.e
	key := p.Dir + "#" + m.Name
	if pr.seen[key] || depth > TreeMaxDepth {
		return nil
	}
	pr.seen[key] = true
	wrap := func(err error) error {
		if depth == 0 {
			return err
		}
		return contract.Errorf(contract.CodeOf(err), "child skill %s#%s: %s", p.Name, m.Name, err.Error())
	}
	if err := packet.Prepare(p, packet.FromPlugins(ctx, e.Host)); err != nil {
		return wrap(err)
	}
	if err := pr.method(ctx, p, m); err != nil {
		return wrap(err)
	}
	if e.Resolver == nil {
		return nil
	}
	for _, sr := range skillctx.MethodRefs(m) {
		cp, methodName, err := e.Resolver.Resolve(p.Dir, sr.Ref)
		if err == nil {
			var cm *pkg.Method
			if cm, err = cp.SelectMethod(methodName); err == nil {
				err = pr.closure(ctx, cp, cm, depth+1)
				if err != nil {
					return err
				}
				continue
			}
		}
		return wrap(contract.Errorf(contract.CodeOf(err), "step %s names skill %s, which does not resolve: %s; no step was started", sr.Step, sr.Ref, err.Error()))
	}
	return nil
}

// method checks one method's own steps.
func (pr *preparation) method(ctx context.Context, p *pkg.Package, m *pkg.Method) error {
	e := pr.e
	for _, s := range m.Steps {
		if !runnableKinds[s.Kind] {
			return contract.Errorf(errcode.StepKindUnsupported, "step %s is a %s step, which this runx (%s) does not run yet; no step was started", s.ID, s.Kind, e.RunxVersion)
		}
		if err := pr.resolveStep(ctx, p, s); err != nil {
			return err
		}
		if s.ForEach != "" && (s.Kind == pkg.KindAgent || s.Kind == pkg.KindAsk) {
			return contract.Errorf(errcode.ForEachUnsupported, "step %s: for_each fans out tools, modules, commands and skills, not %s steps", s.ID, s.Kind)
		}
		if s.When != "" {
			if _, err := guard.Compile(s); err != nil {
				return err
			}
		}
	}
	if err := pr.childContracts(p, m); err != nil {
		return err
	}
	for _, id := range m.ResultFrom {
		s := m.Step(id)
		if s == nil {
			return contract.Errorf(errcode.ResultFromUnknown, "method %s: result_from names %q, which is not a step", m.Name, id)
		}
		if len(m.ResultFrom) == 1 {
			if !pr.hasResultContract(ctx, p, s, 0) {
				return contract.Errorf(errcode.ResultContractMissing, "method %s: result producer %s declares no output contract (no outputs, no result_as, and what it runs declares none); declare the step's outputs", m.Name, id)
			}
			continue
		}
		if len(s.Outputs) == 0 && s.ResultAs == "" {
			return contract.Errorf(errcode.ResultContractMissing, "method %s: result producer %s declares no outputs; declare the step's outputs", m.Name, id)
		}
	}
	if len(m.ResultFrom) > 1 {
		owners := map[string][]string{}
		for _, id := range m.ResultFrom {
			s := m.Step(id)
			for key := range producedKeys(s) {
				// Producers of one key must be branches that can never both
				// run: guards runx proves exclusive (guard.Exclusive).
				for _, other := range owners[key] {
					if !guard.Exclusive(s.When, m.Step(other).When) {
						return contract.Errorf(errcode.ResultKeyCollision, "method %s: result producers %s and %s both emit %q, and their guards are not provably exclusive (write them as x and !x, or x == a and x == b)", m.Name, other, id, key)
					}
				}
				owners[key] = append(owners[key], id)
			}
		}
	}
	return nil
}

func producedKeys(s *pkg.Step) map[string]bool {
	if s.ResultAs != "" {
		return map[string]bool{s.ResultAs: true}
	}
	keys := map[string]bool{}
	for k := range s.Outputs {
		keys[k] = true
	}
	return keys
}

// Preparation codes for what a step names.

// resultContractDepth bounds how deep a producer's contract is looked for
// through nested skills; preparation bounds the closure itself.
const resultContractDepth = 8

// resolveStep refuses, before any step runs, a step that names something
// this runx cannot find: a tool id, a connector operation, and each tool
// and operation its turn's or script's calls list. Tool ids and refs are
// static; what a step computes at run time (its inputs, for_each items) is
// not resolved here.
func (pr *preparation) resolveStep(ctx context.Context, p *pkg.Package, s *pkg.Step) error {
	switch s.Kind {
	case pkg.KindTool:
		if err := pr.resolveTool(ctx, s.ID, s.Tool.Capability); err != nil {
			return err
		}
	case pkg.KindOperation:
		if err := pr.checkOperation(ctx, p, s); err != nil {
			return err
		}
	case pkg.KindAgent: // each context skill resolves, within its bounds
		if _, err := skillctx.Read(pr.e.Resolver.Resolve, p, s); err != nil {
			return err
		}
	}
	for _, c := range []*pkg.Calls{skillctx.AgentCalls(s), skillctx.ScriptCalls(s)} {
		if c == nil {
			continue
		}
		for _, t := range c.Tools {
			if err := pr.resolveTool(ctx, s.ID, t); err != nil {
				return err
			}
		}
		for _, ref := range c.Operations {
			connector, operation, _ := strings.Cut(ref, "/")
			call := &pkg.Step{ID: s.ID, Kind: pkg.KindOperation, Operation: &pkg.OperationStep{Ref: ref, Connector: connector, Operation: operation}}
			if err := pr.resolveOperation(ctx, p, call); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolveTool refuses a tool id neither the kernel nor any installed
// plugin describes. A plugin that is installed but refused as it stands
// (unpinned, changed since pinned) is refused with its own code.
func (pr *preparation) resolveTool(ctx context.Context, stepID, id string) error {
	e := pr.e
	if native.Lookup(id) != nil {
		return nil
	}
	_, _, err := e.Host.Definition(ctx, id)
	if err == nil {
		return nil
	}
	var he *host.Error
	if errors.As(err, &he) && he.Code != errcode.PluginNotFound && he.Code != errcode.CapabilityNotFound {
		return contract.Errorf(he.Code, "step %s names tool %s: %s; no step was started", stepID, id, he.Message)
	}
	return contract.Errorf(errcode.ToolUnknown, "step %s names tool %q, which no installed plugin describes (runx tool list shows the tools this runx has); no step was started", stepID, id)
}

// hasResultContract reports whether a result producer's outputs are
// declared: by the step (outputs, result_as), by the child method it runs
// (its outputs, or its own producers' contracts), or by the capability or
// connector operation it calls (an output schema). A module, command,
// turn, question or script declares nothing of its own: its step must.
func (pr *preparation) hasResultContract(ctx context.Context, p *pkg.Package, s *pkg.Step, depth int) bool {
	e := pr.e
	if len(s.Outputs) > 0 || s.ResultAs != "" {
		return true
	}
	switch s.Kind {
	case pkg.KindTool:
		if t := native.Lookup(s.Tool.Capability); t != nil {
			return len(t.Definition().OutputSchema) > 0
		}
		def := definitionOf(ctx, e.Host, s.Tool.Capability)
		return def != nil && len(def.OutputSchema) > 0
	case pkg.KindOperation:
		if mo, err := connector.ManifestOperation(p, s.Operation, e.addedConnectors().With(pr.verified)); err == nil && mo != nil {
			return len(mo.Def.OutputSchema) > 0
		}
		def := definitionOf(ctx, e.Host, operationCapability(s.Operation))
		return def != nil && len(def.OutputSchema) > 0
	case pkg.KindSkill:
		if e.Resolver == nil || depth >= resultContractDepth {
			return false
		}
		cp, methodName, err := e.Resolver.Resolve(p.Dir, s.Skill)
		if err != nil {
			return false
		}
		cm, err := cp.SelectMethod(methodName)
		if err != nil {
			return false
		}
		if len(cm.Outputs) > 0 {
			return true
		}
		producers := cm.ResultSteps()
		for _, id := range producers {
			ps := cm.Step(id)
			if ps == nil || !pr.hasResultContract(ctx, cp, ps, depth+1) {
				return false
			}
		}
		return len(producers) > 0
	}
	return false
}

// checkOperation refuses, at admission, an operation no installed
// connector plugin declares.
func (pr *preparation) checkOperation(ctx context.Context, p *pkg.Package, s *pkg.Step) error {
	mo, err := connector.ManifestOperation(p, s.Operation, pr.e.addedConnectors().With(pr.verified))
	if err == nil && mo != nil && mo.Op.Verb == pkg.VerbWrite && s.Operation.IdempotencyKey == "" {
		return contract.Errorf(errcode.IdempotencyKeyMissing, "step %s writes through %s and names no idempotency_key; a write names one, which a retry reuses; no step was started", s.ID, s.Operation.Ref)
	}
	return pr.resolveOperation(ctx, p, s)
}

// resolveOperation refuses an operation ref no connector manifest and no
// installed connector plugin declares: a step's, or one a turn's or a
// script's calls list (whose idempotency key its call supplies).
func (pr *preparation) resolveOperation(ctx context.Context, p *pkg.Package, s *pkg.Step) error {
	e := pr.e
	mo, err := connector.ManifestOperation(p, s.Operation, e.addedConnectors().With(pr.verified))
	if err != nil {
		return err
	}
	if mo != nil {
		// A manifest operation is sent by the connector.request role.
		_, err := e.roleCapability(ctx, sdk.RoleConnectorRequest)
		return err
	}
	def, _, err := e.Host.Definition(ctx, operationCapability(s.Operation))
	var he *host.Error
	if err != nil && errors.As(err, &he) && he.Code != errcode.PluginNotFound && he.Code != errcode.CapabilityNotFound {
		// The connector is installed and refused as it stands (unpinned,
		// changed since it was pinned): say that, not that it is missing.
		return contract.Errorf(he.Code, "step %s calls %s: %s; no step was started", s.ID, s.Operation.Ref, he.Message)
	}
	if def == nil {
		return contract.Errorf(errcode.ConnectorNotInstalled, "step %s calls %s, which no installed connector plugin declares (plugin %q serves no capability %q); no step was started", s.ID, s.Operation.Ref, s.Operation.Connector, operationCapability(s.Operation))
	}
	for _, role := range def.Roles {
		if role != sdk.RoleDataOperation && role != sdk.RolePrivateData {
			// The kernel invokes a role capability for its role only:
			// a migration or a module runner is no operation.
			return contract.Errorf(errcode.ConnectorNotInstalled, "step %s calls %s, which its plugin serves only for the kernel's %s role, not as an operation; no step was started", s.ID, s.Operation.Ref, role)
		}
	}
	return nil
}
