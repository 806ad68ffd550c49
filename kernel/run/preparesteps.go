package run

import (
	"context"
	"errors"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/native"
)

// Preparation codes for what a step names.
const (
	// CodeToolUnknown: a step, or a turn's or a script's calls, names a tool
	// id no installed plugin describes (and the kernel does not answer).
	CodeToolUnknown = "tool_unknown"
	// CodeResultContractMissing: a result producer whose outputs nothing
	// declares: not the step, not the method or capability it runs.
	CodeResultContractMissing = "result_contract_missing"
)

// resultContractDepth bounds how deep a producer's contract is looked for
// through nested skills; preparation bounds the closure itself.
const resultContractDepth = 8

// resolveStep refuses, before any step runs, a step that names something
// this runx cannot find: a tool id, a connector operation, and each tool
// and operation its turn's or script's calls list. Tool ids and refs are
// static; what a step computes at run time (its inputs, for_each items) is
// not resolved here.
func (e *engine) resolveStep(ctx context.Context, p *pkg.Package, s *pkg.Step) error {
	switch s.Kind {
	case pkg.KindTool:
		if err := e.resolveTool(ctx, s.ID, s.Tool.Capability); err != nil {
			return err
		}
	case pkg.KindOperation:
		if err := e.checkOperation(ctx, p, s); err != nil {
			return err
		}
	}
	for _, c := range []*pkg.Calls{agentCalls(s), scriptCalls(s)} {
		if c == nil {
			continue
		}
		for _, t := range c.Tools {
			if err := e.resolveTool(ctx, s.ID, t); err != nil {
				return err
			}
		}
		for _, ref := range c.Operations {
			connector, operation, _ := strings.Cut(ref, "/")
			call := &pkg.Step{ID: s.ID, Kind: pkg.KindOperation, Operation: &pkg.OperationStep{Ref: ref, Connector: connector, Operation: operation}}
			if err := e.resolveOperation(ctx, p, call); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolveTool refuses a tool id neither the kernel nor any installed
// plugin describes. A plugin that is installed but refused as it stands
// (unpinned, changed since pinned) is refused with its own code.
func (e *engine) resolveTool(ctx context.Context, stepID, id string) error {
	if native.Lookup(id) != nil {
		return nil
	}
	_, _, err := e.Host.Definition(ctx, id)
	if err == nil {
		return nil
	}
	var he *host.Error
	if errors.As(err, &he) && he.Code != host.CodePluginNotFound && he.Code != host.CodeCapabilityNotFound {
		return contract.Errorf(he.Code, "step %s names tool %s: %s; no step was started", stepID, id, he.Message)
	}
	return contract.Errorf(CodeToolUnknown, "step %s names tool %q, which no installed plugin describes (runx tool list shows the tools this runx has); no step was started", stepID, id)
}

// hasResultContract reports whether a result producer's outputs are
// declared: by the step (outputs, result_as), by the child method it runs
// (its outputs, or its own producers' contracts), or by the capability or
// connector operation it calls (an output schema). A module, command,
// turn, question or script declares nothing of its own: its step must.
func (e *engine) hasResultContract(ctx context.Context, p *pkg.Package, s *pkg.Step, depth int) bool {
	if len(s.Outputs) > 0 || s.ResultAs != "" {
		return true
	}
	switch s.Kind {
	case pkg.KindTool:
		if t := native.Lookup(s.Tool.Capability); t != nil {
			return len(t.Definition().OutputSchema) > 0
		}
		def := e.definition(ctx, s.Tool.Capability)
		return def != nil && len(def.OutputSchema) > 0
	case pkg.KindOperation:
		if mo, err := connector.ManifestOperation(p, s.Operation, e.ProjectDir); err == nil && mo != nil {
			return len(mo.Def.OutputSchema) > 0
		}
		def := e.definition(ctx, operationCapability(s.Operation))
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
			if ps == nil || !e.hasResultContract(ctx, cp, ps, depth+1) {
				return false
			}
		}
		return len(producers) > 0
	}
	return false
}
