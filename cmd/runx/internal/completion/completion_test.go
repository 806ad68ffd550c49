package completion

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/internal/testenv"
	"github.com/spf13/cobra"
)

// One completion offers at most MaxEntries values, however many match.
func TestBoundedCapsOffers(t *testing.T) {
	var many []string
	for i := 0; i < MaxEntries+50; i++ {
		many = append(many, fmt.Sprintf("run_%d", i))
	}
	if got := bounded(many); len(got) != MaxEntries {
		t.Fatalf("offered %d, want %d", len(got), MaxEntries)
	}
}

// A description is one visible line beside its value: a skill's newlines
// or control characters cannot break the shell's completion list.
func TestOfferIsOneVisibleLine(t *testing.T) {
	got := offer("deploy#build", "Append\na line\tto\x1b[2Jlog.txt.\r\n"+strings.Repeat("x", 200))
	value, desc, ok := strings.Cut(got, "\t")
	if !ok || value != "deploy#build" {
		t.Fatalf("got %q", got)
	}
	if strings.ContainsAny(desc, "\t\n\r\x1b") {
		t.Fatalf("description not one visible line: %q", desc)
	}
	if n := len([]rune(desc)); n > 80 {
		t.Fatalf("description is %d runes, want at most 80", n)
	}
	if offer("greet", "  ") != "greet" {
		t.Fatal("a blank description is offered as a value alone")
	}
}

// project is a hermetic workspace with skills greet (one method) and deploy
// (build and check), and a Source reading it as the command line would.
func project(t *testing.T) (*Source, string) {
	t.Helper()
	dir := testenv.Dir(t)
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("RUNX_HOME", filepath.Join(dir, ".home"))
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("skills/greet/SKILL.md", "---\nname: greet\ndescription: Says hello.\n---\nx\n")
	write("skills/greet/run.yaml", "minimum_runx: 0.1.0\nmethods:\n  run:\n    steps:\n      - id: hi\n        tool: command.execute\n        inputs: { argv: [echo, hi] }\n")
	write("skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Ships it.\n---\nx\n")
	write("skills/deploy/run.yaml", "minimum_runx: 0.1.0\nmethods:\n  build:\n    description: Build it.\n    steps:\n      - id: b\n        tool: command.execute\n        inputs: { argv: [echo, b] }\n  check:\n    description: Check it.\n    steps:\n      - id: c\n        tool: command.execute\n        inputs: { argv: [echo, c] }\n")
	f := &cli.Factory{IO: &cli.IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}}
	return &Source{Factory: f}, dir
}

// Skill refs and a skill's methods are offered from the workspace, and a
// project with no run records offers no runs and gets none made.
func TestSourceOffersSkillsMethodsAndNoRunsWithoutRecords(t *testing.T) {
	s, dir := project(t)
	refs, err := s.Skills("")
	if err != nil || strings.Join(refs, "|") != "deploy\tShips it.|greet\tSays hello." {
		t.Fatalf("skills: %q, %v", refs, err)
	}
	methods, err := s.Skills("deploy#c")
	if err != nil || strings.Join(methods, "|") != "deploy#check\tCheck it." {
		t.Fatalf("methods: %q, %v", methods, err)
	}
	if m, err := s.Methods("deploy", ""); err != nil || len(m) != 2 {
		t.Fatalf("methods after the ref: %q, %v", m, err)
	}
	ctx := context.Background()
	if runs, err := s.Runs(ctx, ""); err != nil || len(runs) != 0 {
		t.Fatalf("runs without records: %q, %v", runs, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".runx", "state.sqlite")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("completion made run records (%v)", err)
	}
	// No records is no runs; asking what a run waits on there fails, and
	// the command answers that with the error directive, offering nothing.
	if _, err := s.Decisions(ctx, "run_x", ""); err == nil {
		t.Fatal("pending requests of a run in a project with no records: no error")
	}
	if out, d := answer(s.Decisions(ctx, "run_x", "")); len(out) != 0 || d != cobra.ShellCompDirectiveError {
		t.Fatalf("got %q, directive %d; want nothing and the error directive", out, d)
	}
}

// An offer that stops at a free-text question's "=" keeps the shell from
// adding a space; offers of whole options do not.
func TestOffersFreeText(t *testing.T) {
	if !offersFreeText([]string{"ask@sha256:ab:channel=email\tWhere?", "ask@sha256:ab:note=\tAnything else?"}) {
		t.Fatal("a free-text question's offer was not seen")
	}
	if offersFreeText([]string{"ask@sha256:ab:channel=email\tWhere?", "ask@sha256:ab:tone=a=b"}) {
		t.Fatal("offers of whole options were taken for free text")
	}
}
