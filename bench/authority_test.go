package bench

import (
	"testing"

	"github.com/runxhq/runx/kernel/authority"
)

// authorityBenchDoc is a host authority with the shape a real host states:
// narrowed effects and reach, limits, and a handful of standing approvals
// of every kind, so coverage walks real lists.
const authorityBenchDoc = `{
  "effects": "ask",
  "reach": "workspace",
  "max_concurrency": 8,
  "max_fanout": 16,
  "max_spend_micro_usd": 5000000,
  "standing_approvals": [
    {"edits": {"paths": ["docs", "examples/hello-world"]}},
    {"commands": {"argv_prefix": ["go", "test"]}},
    {"commands": {"argv_prefix": ["npm", "run", "lint"]}},
    {"operations": {"names": ["forge/issue.comment", "chat/*"]}},
    {"edits": {"paths": ["src/kernel", "src/plugins"]}}
  ]
}`

// BenchmarkAuthorityDecision measures one authority decision as admission
// makes it before a step or call is claimed: narrowing host, method, step
// and call layers, then the approval floor. The target is under 10 µs per
// decision (issue 5); each sub-benchmark is one decision per op.
func BenchmarkAuthorityDecision(b *testing.B) {
	a, err := authority.Parse([]byte(authorityBenchDoc))
	if err != nil {
		b.Fatal(err)
	}
	host := a.Layer()
	method := authority.Layer{Kind: authority.LayerMethod, Name: "main", Effects: authority.EffectsAllow}
	step := authority.Layer{Kind: authority.LayerStep, Name: "apply", Reach: authority.ReachWorkspace}
	call := authority.Layer{Kind: authority.LayerCall, Name: "apply/3"}
	standing := a.Standing()

	cases := []struct {
		name   string
		layers []authority.Layer
		change authority.Change
		want   authority.Verdict
	}{
		{"edit/admitted", []authority.Layer{host, method, step, call},
			authority.Change{Kind: authority.ChangeEdit, Paths: []string{"src/kernel/run/engine.go", "src/plugins/fs/edit.go", "docs/guide.md"}},
			authority.VerdictAllow},
		{"edit/gate", []authority.Layer{host, method, step, call},
			authority.Change{Kind: authority.ChangeEdit, Paths: []string{"src/kernel/run/engine.go", "Makefile"}},
			authority.VerdictGate},
		{"command/admitted", []authority.Layer{host, method, step, call},
			authority.Change{Kind: authority.ChangeCommand, Argv: []string{"go", "test", "./kernel/...", "-run", "TestX"}},
			authority.VerdictAllow},
		{"operation/gate", []authority.Layer{host, method, step, call},
			authority.Change{Kind: authority.ChangeOperationWrite, Operation: "forge/issue.create"},
			authority.VerdictGate},
		{"operation/own-approval", []authority.Layer{host, method, step, call},
			authority.Change{Kind: authority.ChangeOperationWrite, Operation: "forge/issue.create", OwnApproval: true},
			authority.VerdictAllow},
		{"none/refused", []authority.Layer{host, method, {Kind: authority.LayerStep, Name: "apply", Effects: authority.EffectsNone}, call},
			authority.Change{Kind: authority.ChangeEdit, Paths: []string{"docs/a.md"}},
			authority.VerdictRefuse},
		{"nohost/allow", []authority.Layer{{}, method, step, call},
			authority.Change{Kind: authority.ChangeCommand, Argv: []string{"make"}},
			authority.VerdictAllow},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if d := authority.Floor(authority.Narrow(c.layers...), c.change, standing); d.Verdict != c.want {
				b.Fatalf("decision %+v, want %s", d, c.want)
			}
			b.ReportAllocs()
			var d authority.Decision
			for b.Loop() {
				d = authority.Floor(authority.Narrow(c.layers...), c.change, standing)
			}
			_ = d
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "µs/decision")
		})
	}
}
