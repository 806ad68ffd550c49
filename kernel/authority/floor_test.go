package authority

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

var (
	saLocal      = StandingApproval{Local: true}
	saEditsSrc   = StandingApproval{Edits: &EditsApproval{Paths: []string{"src"}}}
	saEditsAll   = StandingApproval{Edits: &EditsApproval{Paths: []string{""}}}
	saEditsDocs  = StandingApproval{Edits: &EditsApproval{Paths: []string{"docs"}}}
	saCmdGoTest  = StandingApproval{Commands: &CommandsApproval{ArgvPrefix: []string{"go", "test"}}}
	saCmdGoBuild = StandingApproval{Commands: &CommandsApproval{ArgvPrefix: []string{"go", "build"}}}
	saOpExact    = StandingApproval{Operations: &OperationsApproval{Names: []string{"forge/issue.create"}}}
	saOpConn     = StandingApproval{Operations: &OperationsApproval{Names: []string{"forge/*"}}}
	saOpOther    = StandingApproval{Operations: &OperationsApproval{Names: []string{"forge/issue.close", "other/*"}}}
)

// floorScenarios are the standing approval sets the floor table runs every
// change under; the columns of floorTable are in this order.
var floorScenarios = []struct {
	name     string
	standing []StandingApproval
}{
	{"none", nil},
	{"local", []StandingApproval{saLocal}},
	{"edits src", []StandingApproval{saEditsSrc}},
	{"edits whole workspace", []StandingApproval{saEditsAll}},
	{"edits docs", []StandingApproval{saEditsDocs}},
	{"commands go test", []StandingApproval{saCmdGoTest}},
	{"commands go build", []StandingApproval{saCmdGoBuild}},
	{"operations exact", []StandingApproval{saOpExact}},
	{"operations forge/*", []StandingApproval{saOpConn}},
	{"operations other", []StandingApproval{saOpOther}},
	{"mixed", []StandingApproval{saEditsDocs, saCmdGoBuild, saOpOther, saEditsSrc, saCmdGoTest, saOpConn}},
}

// floorTable is the floor under effects ask: for each change, the outcome
// under each scenario. A = allowed with no standing approval named,
// A<i>[,<j>] = admitted by those entries, T = gate of type tool,
// W = gate of type write, R:<code> = refused.
var floorTable = []struct {
	name   string
	change Change
	want   [11]string
}{
	{"no change", Change{Kind: ChangeNone},
		[11]string{"A", "A", "A", "A", "A", "A", "A", "A", "A", "A", "A"}},
	{"edit under src", Change{Kind: ChangeEdit, Paths: []string{"src/a.go"}},
		[11]string{"T", "A0", "A0", "A0", "T", "T", "T", "T", "T", "T", "A3"}},
	{"edit of the approved path itself", Change{Kind: ChangeEdit, Paths: []string{"src"}},
		[11]string{"T", "A0", "A0", "A0", "T", "T", "T", "T", "T", "T", "A3"}},
	{"edit of a sibling sharing a prefix", Change{Kind: ChangeEdit, Paths: []string{"srcx/a.go"}},
		[11]string{"T", "A0", "T", "A0", "T", "T", "T", "T", "T", "T", "T"}},
	{"edit across two approved trees", Change{Kind: ChangeEdit, Paths: []string{"src/a.go", "docs/b.md"}},
		[11]string{"T", "A0", "T", "A0", "T", "T", "T", "T", "T", "T", "A3,0"}},
	{"edit escaping the workspace", Change{Kind: ChangeEdit, Paths: []string{"../outside"}},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"edit of paths not yet known", Change{Kind: ChangeEdit},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"edit of no paths", Change{Kind: ChangeEdit, Paths: []string{}},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"edit with its own approval", Change{Kind: ChangeEdit, Paths: []string{"x"}, OwnApproval: true},
		[11]string{"A", "A", "A", "A", "A", "A", "A", "A", "A", "A", "A"}},
	{"command under the prefix", Change{Kind: ChangeCommand, Argv: []string{"go", "test", "./..."}},
		[11]string{"T", "A0", "T", "T", "T", "A0", "T", "T", "T", "T", "A4"}},
	{"command equal to the prefix", Change{Kind: ChangeCommand, Argv: []string{"go", "test"}},
		[11]string{"T", "A0", "T", "T", "T", "A0", "T", "T", "T", "T", "A4"}},
	{"command shorter than the prefix", Change{Kind: ChangeCommand, Argv: []string{"go"}},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"command whose token only starts like the prefix", Change{Kind: ChangeCommand, Argv: []string{"go", "testx"}},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"command shell line is one token", Change{Kind: ChangeCommand, Argv: []string{"go test; rm -rf /"}},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"command with argv not yet known", Change{Kind: ChangeCommand},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"process start under the prefix", Change{Kind: ChangeProcessStart, Argv: []string{"go", "test", "-run", "X"}},
		[11]string{"T", "A0", "T", "T", "T", "A0", "T", "T", "T", "T", "A4"}},
	{"process start elsewhere", Change{Kind: ChangeProcessStart, Argv: []string{"npm", "run", "dev"}},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"operation write", Change{Kind: ChangeOperationWrite, Operation: "forge/issue.create"},
		[11]string{"W", "W", "W", "W", "W", "W", "W", "A0", "A0", "W", "A5"}},
	{"operation write on a namespaced connector", Change{Kind: ChangeOperationWrite, Operation: "forge/sub/issue.create"},
		[11]string{"W", "W", "W", "W", "W", "W", "W", "W", "W", "W", "W"}},
	{"operation write on another connector", Change{Kind: ChangeOperationWrite, Operation: "other/post"},
		[11]string{"W", "W", "W", "W", "W", "W", "W", "W", "W", "A0", "A2"}},
	{"operation write with its own approval", Change{Kind: ChangeOperationWrite, Operation: "forge/issue.create", OwnApproval: true},
		[11]string{"A", "A", "A", "A", "A", "A", "A", "A", "A", "A", "A"}},
	{"store write", Change{Kind: ChangeStoreWrite},
		[11]string{"T", "A0", "T", "T", "T", "T", "T", "T", "T", "T", "T"}},
	{"store write to the package's own state", Change{Kind: ChangeStoreWrite, OwnStore: true},
		[11]string{"A", "A", "A", "A", "A", "A", "A", "A", "A", "A", "A"}},
	{"own store write whose step carries an approval", Change{Kind: ChangeStoreWrite, OwnStore: true, OwnApproval: true},
		[11]string{"A", "A", "A", "A", "A", "A", "A", "A", "A", "A", "A"}},
	{"store write by a turn's own call", Change{Kind: ChangeStoreWrite, FromTurn: true},
		[11]string{"R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused", "R:turn_store_write_refused"}},
	{"missing change kind", Change{},
		[11]string{"R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid"}},
	{"unknown change kind", Change{Kind: "teleport"},
		[11]string{"R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid", "R:change_invalid"}},
}

// outcome writes a decision in the table's notation.
func outcome(d Decision) string {
	switch d.Verdict {
	case VerdictAllow:
		if d.Standing == nil {
			return "A"
		}
		idx := make([]string, len(d.Standing))
		for i, n := range d.Standing {
			idx[i] = strconv.Itoa(n)
		}
		return "A" + strings.Join(idx, ",")
	case VerdictGate:
		switch d.GateType {
		case GateTool:
			return "T"
		case GateWrite:
			return "W"
		}
	case VerdictRefuse:
		return "R:" + string(d.Code)
	}
	return fmt.Sprintf("?%+v", d)
}

// TestFloorTable runs every change under every standing approval scenario
// and every effects value, against the table for ask and the rules for
// none and allow.
func TestFloorTable(t *testing.T) {
	for _, row := range floorTable {
		for col, sc := range floorScenarios {
			for _, effects := range allEffects {
				eff := Narrow(Layer{Kind: LayerHost, Effects: effects})
				if effects == EffectsUnset {
					eff = Effective{} // not from Narrow: a missing decision
				}
				want := row.want[col]
				switch effects {
				case EffectsAllow:
					if !strings.HasPrefix(want, "R:") {
						want = "A"
					}
				case EffectsNone, EffectsUnset:
					if row.change.Kind != ChangeNone && !strings.HasPrefix(want, "R:") {
						want = "R:effects_none_refused"
					}
				}
				d := Floor(eff, row.change, sc.standing)
				if got := outcome(d); got != want {
					t.Errorf("%s under effects %q with standing %s: %s (%s), want %s", row.name, effects, sc.name, got, d.Rule, want)
				}
				checkDecision(t, d, eff, sc.standing)
			}
		}
	}
}

// checkDecision holds every decision to its contract: the rule names the
// deciding effects, a refusal converts to an *Error naming it, a gate has a
// type, and an admission names each entry.
func checkDecision(t *testing.T, d Decision, eff Effective, standing []StandingApproval) {
	t.Helper()
	if d.Rule == "" {
		t.Errorf("decision without a rule: %+v", d)
	}
	switch d.Verdict {
	case VerdictRefuse:
		if d.Code == "" {
			t.Errorf("refusal without code: %+v", d)
		}
		wantCode(t, d.Err(), d.Code)
		if d.Code == errcode.EffectsNoneRefused && eff.Effects == EffectsNone && !strings.Contains(d.Rule, "effects none (host authority)") {
			t.Errorf("refusal does not name the layer: %q", d.Rule)
		}
	case VerdictGate:
		if d.GateType == "" || d.Err() != nil || d.Code != "" {
			t.Errorf("bad gate: %+v", d)
		}
		if !strings.Contains(d.Rule, "effects ask (host authority)") {
			t.Errorf("gate does not name the layer: %q", d.Rule)
		}
	case VerdictAllow:
		if d.GateType != "" || d.Err() != nil || d.Code != "" {
			t.Errorf("bad allow: %+v", d)
		}
		for _, i := range d.Standing {
			name := fmt.Sprintf("standing_approvals[%d] (%s)", i, standing[i].Kind())
			if !strings.Contains(d.Rule, name) {
				t.Errorf("rule %q does not name %s", d.Rule, name)
			}
		}
	}
}

func TestFloorRules(t *testing.T) {
	ask := Narrow(Layer{Kind: LayerHost, Effects: EffectsAllow}, Layer{Kind: LayerStep, Name: "write", Effects: EffectsAsk})
	none := Narrow(Layer{Kind: LayerMethod, Name: "greet", Effects: EffectsNone})
	tests := []struct {
		name     string
		eff      Effective
		change   Change
		standing []StandingApproval
		rule     []string
	}{
		{"gate names the layer and the entries that did not cover", ask, Change{Kind: ChangeEdit, Paths: []string{"lib/x"}},
			[]StandingApproval{saEditsSrc, saCmdGoTest, saEditsDocs},
			[]string{`effects ask (step "write")`, `standing_approvals[0] (edits), standing_approvals[2] (edits) do not cover "lib/x"`}},
		{"gate with one entry tried", ask, Change{Kind: ChangeCommand, Argv: []string{"rm"}}, []StandingApproval{saCmdGoTest},
			[]string{`standing_approvals[0] (commands) does not cover its argv`}},
		{"gate with no entry of the kind", ask, Change{Kind: ChangeOperationWrite, Operation: "f/x"}, []StandingApproval{saLocal},
			[]string{`no operations standing approval covers it`}},
		{"store write only local covers", ask, Change{Kind: ChangeStoreWrite}, []StandingApproval{saEditsAll},
			[]string{`no local standing approval covers it`}},
		{"admission names the entry", ask, Change{Kind: ChangeEdit, Paths: []string{"docs/a"}}, []StandingApproval{saCmdGoTest, saEditsDocs},
			[]string{`effects ask (step "write")`, `admitted by standing_approvals[1] (edits)`}},
		{"local admits first", ask, Change{Kind: ChangeEdit, Paths: []string{"docs/a"}}, []StandingApproval{saEditsDocs, saLocal},
			[]string{`admitted by standing_approvals[1] (local)`}},
		{"own approval", ask, Change{Kind: ChangeOperationWrite, Operation: "f/x", OwnApproval: true}, []StandingApproval{saOpConn},
			[]string{"carries its own approval, so the floor adds none"}},
		{"own store", ask, Change{Kind: ChangeStoreWrite, OwnStore: true}, nil,
			[]string{"own store state is exempt"}},
		{"none names the method", none, Change{Kind: ChangeOperationWrite, Operation: "f/x", OwnApproval: true}, nil,
			[]string{`effects none (method "greet") refuses every change`}},
		{"allow with no host says so", Narrow(), Change{Kind: ChangeCommand, Argv: []string{"x"}}, nil,
			[]string{"effects allow (no host stated it)"}},
		{"zero effective fails closed", Effective{}, Change{Kind: ChangeEdit, Paths: []string{"a"}}, nil,
			[]string{"effects not decided, so none"}},
		{"a turn never writes to store", Narrow(), Change{Kind: ChangeStoreWrite, FromTurn: true}, nil,
			[]string{"a turn's own call never writes to store"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Floor(tt.eff, tt.change, tt.standing)
			for _, part := range tt.rule {
				if !strings.Contains(d.Rule, part) {
					t.Errorf("rule %q lacks %q", d.Rule, part)
				}
			}
		})
	}
}

func TestFloorRefusalMessage(t *testing.T) {
	d := Floor(Narrow(Layer{Kind: LayerHost, Effects: EffectsNone}), Change{Kind: ChangeEdit, Paths: []string{"a", "b", "c", "d", "e"}}, nil)
	e := wantCode(t, d.Err(), errcode.EffectsNoneRefused)
	want := `an edit of "a", "b", "c" and 2 more is refused (effects none (host authority) refuses every change)`
	if e.Message != want {
		t.Errorf("message %q, want %q", e.Message, want)
	}
}

func TestChangeDescribe(t *testing.T) {
	tests := []struct {
		c    Change
		want string
	}{
		{Change{Kind: ChangeEdit, Paths: []string{"a"}}, `an edit of "a"`},
		{Change{Kind: ChangeEdit}, "an edit of files not yet known"},
		{Change{Kind: ChangeCommand, Argv: []string{"go", "test"}}, `the command ["go", "test"]`},
		{Change{Kind: ChangeCommand}, "the command not yet known"},
		{Change{Kind: ChangeProcessStart, Argv: []string{"npm"}}, `starting the process ["npm"]`},
		{Change{Kind: ChangeOperationWrite, Operation: "f/x"}, `a write by operation "f/x"`},
		{Change{Kind: ChangeStoreWrite}, "a store write"},
		{Change{Kind: ChangeStoreWrite, OwnStore: true}, "a write to the package's own store state"},
		{Change{Kind: "weird"}, `a change of kind "weird"`},
	}
	for _, tt := range tests {
		if got := tt.c.describe(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestCoverageHelpers(t *testing.T) {
	paths := []struct {
		entry, changed string
		want           bool
	}{
		{"", "anything/at/all", true},
		{"src", "src", true},
		{"src", "src/a.go", true},
		{"src", "src/deep/a.go", true},
		{"src", "srcx", false},
		{"src", "srcx/a.go", false},
		{"src/a", "src", false},
		{"src/a", "src/a/b", true},
		{"src/a", "src/ab", false},
		{"Src", "src/a", false},
	}
	for _, tt := range paths {
		if got := pathCovers(tt.entry, tt.changed); got != tt.want {
			t.Errorf("pathCovers(%q, %q) = %v", tt.entry, tt.changed, got)
		}
	}
	argv := []struct {
		prefix, argv []string
		want         bool
	}{
		{[]string{"go"}, []string{"go"}, true},
		{[]string{"go"}, []string{"go", "test"}, true},
		{[]string{"go", "test"}, []string{"go"}, false},
		{[]string{"go", "test"}, []string{"go", "test", "-v"}, true},
		{[]string{"go", "test"}, []string{"go", "vet"}, false},
		{[]string{"git"}, []string{"/usr/bin/git"}, false},
		{[]string{"sh", "-c"}, []string{"sh", "-c", "anything"}, true},
	}
	for _, tt := range argv {
		if got := argvCovers(tt.prefix, tt.argv); got != tt.want {
			t.Errorf("argvCovers(%q, %q) = %v", tt.prefix, tt.argv, got)
		}
	}
	ops := []struct {
		name, op string
		want     bool
	}{
		{"forge/issue.create", "forge/issue.create", true},
		{"forge/issue.create", "forge/issue.close", false},
		{"forge/*", "forge/issue.create", true},
		{"forge/*", "forge/sub/issue.create", false},
		{"forge/*", "forgery/x", false},
		{"fixture/forge/*", "fixture/forge/issue.read", true},
		{"fixture/forge/*", "fixture/x", false},
		{"forge/*", "forge", false},
	}
	for _, tt := range ops {
		if got := operationCovers(tt.name, tt.op); got != tt.want {
			t.Errorf("operationCovers(%q, %q) = %v", tt.name, tt.op, got)
		}
	}
	if !slices.Equal(floorScenarios[10].standing[3].Edits.Paths, []string{"src"}) {
		t.Fatal("the mixed scenario's indexes drifted from the table")
	}
}
