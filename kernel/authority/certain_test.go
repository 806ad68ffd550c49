package authority

import (
	"reflect"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestCertainChanges(t *testing.T) {
	none := Narrow(Layer{Kind: LayerHost, Effects: EffectsNone})
	edit := Change{Kind: ChangeEdit, Paths: []string{"a"}}
	write := Change{Kind: ChangeOperationWrite, Operation: "forge/issue.create", OwnApproval: true}
	steps := []PlannedStep{
		{Address: "read", Authority: none, Changes: []Change{{Kind: ChangeNone}}},
		{Address: "nothing", Authority: none},
		{Address: "write", Authority: none, Changes: []Change{{Kind: ChangeNone}, edit}},
		{Address: "script", Authority: none, Changes: []Change{write, {Kind: ChangeStoreWrite, OwnStore: true}}},
	}
	got := CertainChanges(steps)
	want := []PlannedStep{
		{Address: "write", Authority: none, Changes: []Change{edit}},
		{Address: "script", Authority: none, Changes: []Change{write, {Kind: ChangeStoreWrite, OwnStore: true}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CertainChanges = %+v\nwant %+v", got, want)
	}
	if CertainChanges(steps[:2]) != nil {
		t.Error("steps with no change are not listed")
	}
	if got := CertainChanges([]PlannedStep{{Address: "x", Changes: []Change{{}}}}); len(got) != 1 {
		t.Error("a change with no kind must count as certain, failing closed")
	}
}

func TestRefuseCertain(t *testing.T) {
	hostNone := Narrow(Layer{Kind: LayerHost, Effects: EffectsNone})
	stepNone := Narrow(Layer{Kind: LayerStep, Name: "deploy", Effects: EffectsNone})
	ask := Narrow(Layer{Kind: LayerHost, Effects: EffectsAsk})
	edit := Change{Kind: ChangeEdit, Paths: []string{"src/a.go"}}
	cmd := Change{Kind: ChangeCommand, Argv: []string{"make"}}

	// Under ask or allow nothing is refused at start; the floor decides each step.
	wantCode(t, RefuseCertain([]PlannedStep{{Address: "write", Authority: ask, Changes: []Change{edit}}}), "")
	wantCode(t, RefuseCertain([]PlannedStep{{Address: "write", Authority: Narrow(), Changes: []Change{edit}}}), "")
	// Under none a run with only reads starts.
	wantCode(t, RefuseCertain([]PlannedStep{{Address: "read", Authority: hostNone, Changes: []Change{{Kind: ChangeNone}}}}), "")
	wantCode(t, RefuseCertain(nil), "")

	e := wantCode(t, RefuseCertain([]PlannedStep{
		{Address: "read", Authority: hostNone, Changes: []Change{{Kind: ChangeNone}}},
		{Address: "write", Authority: hostNone, Changes: []Change{edit}},
		{Address: "build", Authority: ask, Changes: []Change{cmd}},
		{Address: "deploy", Authority: stepNone, Changes: []Change{cmd, {Kind: ChangeOperationWrite, Operation: "cloud/deploy", OwnApproval: true}}},
		{Address: "publish>child#main/save", Authority: ForChild(hostNone), Changes: []Change{{Kind: ChangeStoreWrite, OwnStore: true}}},
	}), errcode.EffectsNoneRefused)
	for _, part := range []string{
		`"write" (an edit of "src/a.go")`,
		`"deploy" (the command ["make"]; a write by operation "cloud/deploy")`,
		`"publish>child#main/save" (a write to the package's own store state)`,
		"before any step runs",
	} {
		if !strings.Contains(e.Message, part) {
			t.Errorf("message %q lacks %q", e.Message, part)
		}
	}
	if strings.Contains(e.Message, `"build"`) || strings.Contains(e.Message, `"read"`) {
		t.Errorf("steps not under none, or certain to change nothing, must not be named: %q", e.Message)
	}
	wantRule := `effects none (host authority); effects none (step "deploy"); effects none (host authority in the parent run)`
	if e.Rule != wantRule {
		t.Errorf("rule %q, want %q", e.Rule, wantRule)
	}

	e = wantCode(t, RefuseCertain([]PlannedStep{{Address: "x", Changes: []Change{edit}}}), errcode.EffectsNoneRefused)
	if e.Rule != "effects not decided, so none" {
		t.Errorf("a step with no decided effects fails closed: %q", e.Rule)
	}
}
