package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/internal/testenv"
)

// snapshot lists every file under dir with its size and modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fmt.Sprintf("%s %d %s", info.Mode(), info.Size(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A test never climbs above its temp dir: with a runx-made .runx planted
// above a workspace made by the shared helpers (a stray /tmp/.runx), the
// commands tests run (a run, a failing run, history, runx test, verify)
// use the workspace's own project, and the planted one is left untouched
// and unread.
func TestTestsNeverReachARunxAboveTheirTempDir(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	hello := filepath.Join(repo, "examples", "hello-world")
	runx := func(dir string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(filepath.Join(binDir, "runx"), args...)
		cmd.Dir, cmd.Env = dir, testenv.Env(dir)
		out, err := cmd.Output()
		return string(out), err
	}

	// The decoy: a real project runx made, holding a run of its own.
	above := t.TempDir()
	if err := os.Mkdir(filepath.Join(above, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := runx(above, "skill", hello, "-i", "message=decoy", "--json")
	if err != nil {
		t.Fatalf("planting the decoy: %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(above, ".git")); err != nil {
		t.Fatal(err)
	}
	decoy := filepath.Join(above, ".runx")
	decoyRun := between(out, `"run_id": "`, `"`)
	before := snapshot(t, decoy)

	ws := filepath.Join(above, "tmp", "TestX", "001")
	testenv.Project(t, ws)
	out, err = runx(ws, "skill", hello, "-i", "message=hi", "--json")
	if err != nil {
		t.Fatalf("runx skill: %v\n%s", err, out)
	}
	if out, err := runx(ws, "verify", between(out, `"receipt_id": "`, `"`), "--json"); err != nil {
		t.Fatalf("runx verify: %v\n%s", err, out)
	}
	if out, err := runx(ws, "skill", "nope", "--json"); err == nil {
		t.Fatalf("runx skill nope succeeded: %s", out)
	}
	if out, err := runx(ws, "test", hello); err != nil {
		t.Fatalf("runx test: %v\n%s", err, out)
	}
	history, err := runx(ws, "history", "--json")
	if err != nil {
		t.Fatalf("runx history: %v\n%s", err, history)
	}
	if decoyRun == "" || strings.Contains(history, decoyRun) {
		t.Fatalf("the workspace's history shows the decoy's run %q: %s", decoyRun, history)
	}
	if _, err := os.Stat(filepath.Join(ws, ".runx", "state.sqlite")); err != nil {
		t.Fatalf("the workspace's own project was not used: %v", err)
	}
	after := snapshot(t, decoy)
	for path, was := range before {
		if after[path] != was {
			t.Errorf("the decoy changed: %s (%s -> %s)", path, was, after[path])
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("the decoy gained %s", path)
		}
	}
}

func between(s, start, end string) string {
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, end)
	return v
}
