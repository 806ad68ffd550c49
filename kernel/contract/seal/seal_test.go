package seal

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The outcomes runx.receipt.v1 admits, written out: a receipt with any
// other outcome is invalid, so adding or dropping one is a format change.
func TestOutcomes(t *testing.T) {
	want := []string{"completed", "failed", "refused", "blocked", "declined", "superseded", "killed", "skipped"}
	if len(Outcomes) != len(want) {
		t.Fatalf("outcomes %v, want %v", Outcomes, want)
	}
	for i, o := range Outcomes {
		if string(o) != want[i] || !o.Valid() {
			t.Errorf("outcome %d: %q (valid %v), want %q", i, o, o.Valid(), want[i])
		}
	}
	for _, o := range []Outcome{"", "success", "sealed", "Completed", "completed "} {
		if o.Valid() {
			t.Errorf("%q is valid; no receipt outcome is spelled so", o)
		}
	}
}

func TestReasonsDistinct(t *testing.T) {
	seen := map[Reason]bool{}
	for _, r := range Reasons {
		if r == "" || seen[r] {
			t.Errorf("reason %q empty or listed twice", r)
		}
		seen[r] = true
	}
}

// The package is a leaf kernel/receipt can import: the standard library and
// the error-code registry only.
func TestImportsLeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			stdlib := !strings.Contains(strings.SplitN(path, "/", 2)[0], ".")
			if !stdlib && path != "github.com/runxhq/runx/sdk/errcode" {
				t.Errorf("%s imports %s; kernel/contract/seal imports only sdk/errcode", name, path)
			}
		}
	}
}

// TestRunOutcomes: a run seals with any outcome but skipped, a step's.
func TestRunOutcomes(t *testing.T) {
	if len(RunOutcomes) != len(Outcomes)-1 {
		t.Fatalf("run outcomes %v", RunOutcomes)
	}
	for _, o := range Outcomes {
		if o.RunOutcome() == (o == OutcomeSkipped) {
			t.Errorf("%s: RunOutcome() = %v", o, o.RunOutcome())
		}
	}
	if Outcome("complete").RunOutcome() {
		t.Error("an unknown outcome is a run's")
	}
}
