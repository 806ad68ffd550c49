package step

import (
	"context"
	"testing"

	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The rule that picks which runs defer their journal syncs to the seal:
// only a run whose every step is a module or a described plugin capability
// that reads or does nothing, with no retry and no fan-out. Anything that
// may change something, wait on someone or is not described keeps every
// transition synchronous.
func TestEffectFreeSteps(t *testing.T) {
	defs := map[string]*sdk.Definition{
		"p.shape": {Effect: sdk.EffectNone},
		"p.read":  {Effect: sdk.EffectRead},
		"p.write": {Effect: sdk.EffectWrite},
		"p.exec":  {Effect: sdk.EffectProcess},
		"p.query": {Effect: sdk.EffectRead, Roles: []string{sdk.RoleDataOperation}},
	}
	module := &pkg.Step{ID: "m", Kind: pkg.KindModule}
	tool := func(id string) *pkg.Step {
		return &pkg.Step{ID: id, Kind: pkg.KindTool, Tool: &pkg.ToolStep{Capability: id}}
	}
	retried := &pkg.Step{ID: "r", Kind: pkg.KindModule, Retry: &pkg.Retry{}}
	fanned := &pkg.Step{ID: "f", Kind: pkg.KindModule, ForEach: "$input.items"}
	for name, c := range map[string]struct {
		steps []*pkg.Step
		want  bool
	}{
		"one module (hello-world)":     {[]*pkg.Step{module}, true},
		"module then read":             {[]*pkg.Step{module, tool("p.read")}, true},
		"capability with no effect":    {[]*pkg.Step{tool("p.shape")}, true},
		"no steps":                     {nil, false},
		"a write":                      {[]*pkg.Step{module, tool("p.write")}, false},
		"a process":                    {[]*pkg.Step{tool("p.exec")}, false},
		"a data operation that reads":  {[]*pkg.Step{tool("p.query")}, false},
		"an undescribed capability":    {[]*pkg.Step{tool("p.gone")}, false},
		"a native tool":                {[]*pkg.Step{tool("run.read")}, false},
		"a retried module":             {[]*pkg.Step{retried}, false},
		"a fan-out of modules":         {[]*pkg.Step{fanned}, false},
		"a command":                    {[]*pkg.Step{module, {ID: "c", Kind: pkg.KindCommand}}, false},
		"an operation":                 {[]*pkg.Step{{ID: "o", Kind: pkg.KindOperation}}, false},
		"a child skill":                {[]*pkg.Step{{ID: "s", Kind: pkg.KindSkill}}, false},
		"an agent turn":                {[]*pkg.Step{module, {ID: "a", Kind: pkg.KindAgent}}, false},
		"an ask":                       {[]*pkg.Step{{ID: "q", Kind: pkg.KindAsk}}, false},
		"a script":                     {[]*pkg.Step{{ID: "x", Kind: pkg.KindScript}}, false},
		"effect-free then a late gate": {[]*pkg.Step{module, tool("p.read"), {ID: "q", Kind: pkg.KindAsk}}, false},
	} {
		if got := EffectFreeSteps(context.Background(), c.steps, described(defs)); got != c.want {
			t.Errorf("%s: effect-free %v, want %v", name, got, c.want)
		}
	}
}

// described is capabilities as a table of descriptions, with run.read the
// one native tool.
type described map[string]*sdk.Definition

func (d described) Native(id string) bool { return id == "run.read" }

func (d described) Definition(_ context.Context, id string) *sdk.Definition { return d[id] }
