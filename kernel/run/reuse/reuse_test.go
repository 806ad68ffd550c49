package reuse

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The reuse rule by step, read from the step and its capability's
// description only: transforms keep their stamp, local reads are made
// again, provider reads need identity evidence, the rest recompute.
func TestClassifyForReuse(t *testing.T) {
	tool := func(id string) *pkg.Step {
		return &pkg.Step{ID: "s", Kind: pkg.KindTool, Tool: &pkg.ToolStep{Capability: id}}
	}
	op := &pkg.Step{ID: "s", Kind: pkg.KindOperation, Operation: &pkg.OperationStep{Ref: "x/get", Connector: "x", Operation: "get"}}
	def := func(effect string, roles ...string) *sdk.Definition {
		return &sdk.Definition{Effect: effect, Roles: roles}
	}
	fanned := tool("a.read")
	fanned.ForEach = "$input.items"
	for name, c := range map[string]struct {
		step   *pkg.Step
		native bool
		def    *sdk.Definition
		want   Class
	}{
		"module":              {&pkg.Step{ID: "s", Kind: pkg.KindModule}, false, nil, Transform},
		"capability none":     {tool("a.shape"), false, def(sdk.EffectNone), Transform},
		"capability read":     {tool("a.read"), false, def(sdk.EffectRead), LocalRead},
		"native tool":         {tool("run.read"), true, nil, LocalRead},
		"data operation tool": {tool("a.query"), false, def(sdk.EffectRead, sdk.RoleDataOperation), ProviderRead},
		"capability write":    {tool("a.write"), false, def(sdk.EffectWrite), Ineligible},
		"capability process":  {tool("a.exec"), false, def(sdk.EffectProcess), Ineligible},
		"undescribed":         {tool("a.gone"), false, nil, Unknown},
		"operation read":      {op, false, def(sdk.EffectRead), ProviderRead},
		"operation write":     {op, false, def(sdk.EffectWrite), Ineligible},
		"operation unknown":   {op, false, nil, Unknown},
		"fan-out":             {fanned, false, def(sdk.EffectRead), Ineligible},
		"command":             {&pkg.Step{ID: "s", Kind: pkg.KindCommand}, false, nil, Ineligible},
		"agent":               {&pkg.Step{ID: "s", Kind: pkg.KindAgent}, false, nil, Ineligible},
		"ask":                 {&pkg.Step{ID: "s", Kind: pkg.KindAsk}, false, nil, Ineligible},
		"script":              {&pkg.Step{ID: "s", Kind: pkg.KindScript}, false, nil, Ineligible},
		"skill":               {&pkg.Step{ID: "s", Kind: pkg.KindSkill}, false, nil, Ineligible},
	} {
		got, why := Classify(c.step, c.native, c.def)
		if got != c.want {
			t.Errorf("%s: class %d, want %d", name, got, c.want)
		}
		if (got == Ineligible || got == Unknown) && why == "" {
			t.Errorf("%s: no reason given", name)
		}
	}
}

func TestParseReuse(t *testing.T) {
	for raw, want := range map[string]int64{"": 0, "null": 0, `{"max_age_seconds":604800}`: 604800, `{"max_age_seconds":1}`: 1, `{"max_age_seconds":2.0}`: 2} {
		opt, err := Parse(json.RawMessage(raw))
		if err != nil || (opt == nil) != (want == 0) || opt != nil && opt.MaxAgeSeconds != want {
			t.Errorf("%q: %+v %v, want %d", raw, opt, err, want)
		}
	}
	for _, raw := range []string{`{}`, `[]`, `60`, `"60"`, `{"max_age_seconds":0}`, `{"max_age_seconds":-5}`, `{"max_age_seconds":1.5}`,
		`{"max_age_seconds":"60"}`, `{"max_age_seconds":1e12}`, `{"max_age_seconds":60,"scope":"x"}`, `{"max_age_seconds":null}`} {
		if _, err := Parse(json.RawMessage(raw)); contract.CodeOf(err) != errcode.CallReuseInvalid {
			t.Errorf("%s: %v, want %s", raw, err, errcode.CallReuseInvalid)
		}
	}
}
