package run

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Admission codes for step fields checked before any step runs.

// admitSteps checks the fields of every step in the run's closure that need
// the capabilities' descriptions, before the first step runs, so an author's
// mistake is refused with nothing done: a module's requires must name
// helpers its worker describes, and a retry belongs only to a step with no
// effect.
func (rc *runCtx) admitSteps(ctx context.Context) error {
	seen := map[string]bool{}
	var visit func(p *pkg.Package, m *pkg.Method, depth int) error
	visit = func(p *pkg.Package, m *pkg.Method, depth int) error {
		key := p.Dir + "#" + m.Name
		if seen[key] || depth > TreeMaxDepth {
			return nil
		}
		seen[key] = true
		child := &runCtx{e: rc.e, pkg: p, method: m, Authority: runstate.Authority{Base: rc.Base}}
		for _, s := range m.Steps {
			if err := child.admitStep(ctx, s); err != nil {
				return err
			}
			if s.Kind != pkg.KindSkill || rc.e.Resolver == nil {
				continue
			}
			if cp, method, err := rc.e.Resolver.Resolve(p.Dir, s.Skill); err == nil {
				if cm, err := cp.SelectMethod(method); err == nil {
					if err := visit(cp, cm, depth+1); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return visit(rc.pkg, rc.method, 0)
}

// where names a step's place in its package's run.yaml.
func (rc *runCtx) where(s *pkg.Step) string {
	return fmt.Sprintf("%s:%d", filepath.Join(rc.pkg.Dir, "run.yaml"), s.Pos.Line)
}

func (rc *runCtx) admitStep(ctx context.Context, s *pkg.Step) error {
	if s.Kind == pkg.KindModule && len(s.Tool.Module.Requires) > 0 {
		helpers := rc.e.moduleHelpers(ctx)
		for _, h := range s.Tool.Module.Requires {
			if !slices.Contains(helpers, h) {
				return contract.Errorf(errcode.ModuleRequiresUnknown, "%s: step %s requires the JavaScript helper %q, which the module worker does not provide (it provides %v); no step was started", rc.where(s), s.ID, h, helpers)
			}
		}
	}
	if s.Retry == nil {
		return nil
	}
	switch s.Kind {
	case pkg.KindModule:
		return nil
	case pkg.KindTool, pkg.KindOperation, pkg.KindCommand:
		if gate.ChangeOf(ctx, gatePort{rc}, s).Kind == authority.ChangeNone {
			return nil
		}
		return contract.Errorf(errcode.RetryUnsupported, "%s: step %s retry: the step may change something, and retry is only for steps with no effect; no step was started", rc.where(s), s.ID)
	}
	return contract.Errorf(errcode.RetryUnsupported, "%s: step %s retry: a %s step is not retried by runx (its re-run could repeat an effect or a child run); no step was started", rc.where(s), s.ID, s.Kind)
}

// moduleHelpers are the helpers the module worker describes: the enum of
// its input schema's requires items. A worker that describes none provides
// none a step may require.
func (e *engine) moduleHelpers(ctx context.Context) []string {
	c, err := e.Host.RoleCapability(ctx, sdk.RoleModule)
	if err != nil {
		return nil
	}
	def := c.Definition
	var schema struct {
		Properties struct {
			Requires struct {
				Items struct {
					Enum []string `json:"enum"`
				} `json:"items"`
			} `json:"requires"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(def.InputSchema, &schema)
	return schema.Properties.Requires.Items.Enum
}
