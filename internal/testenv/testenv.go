// Package testenv gives a test that runs runx a hermetic project: its own
// directory marked as a project, its own runx home, and nothing inherited
// from the developer's environment that names runx's state. runx finds a
// project by walking up from where it runs (kernel/run/workspace.go); a
// test directory not marked as one would let that walk reach a .runx above
// the test's temp dir (a stray /tmp/.runx) and read or write it.
//
// It is test support only: nothing outside _test.go files and test suites
// may import it.
package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/run"
)

// Project marks dir as a runx project: it holds a .runx of its own, runx's
// as runx makes one (with its identity file), so finding the project from
// dir, or from any directory below it, stops at dir and never climbs above
// it, whatever the test then puts in that .runx.
func Project(t testing.TB, dir string) {
	t.Helper()
	if err := MarkProject(dir); err != nil {
		t.Fatal(err)
	}
}

// MarkProject is Project for a harness without a testing.TB (testscript's
// Setup).
func MarkProject(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return run.MarkProject(dir)
}

// Dir is a fresh temporary directory marked as a project.
func Dir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Project(t, dir)
	return dir
}

// Env is the environment a runx process of the test runs in: the test
// process's own, without any RUNX_ setting inherited from the developer's
// shell (a RUNX_PROJECT_DIR or RUNX_RECEIPT_DIR there would send the test's
// state elsewhere), with the runx home in dir/.home and colour off; extra
// entries (NAME=value) come last and win.
func Env(dir string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RUNX_") {
			env = append(env, kv)
		}
	}
	env = append(env, "RUNX_HOME="+filepath.Join(dir, ".home"), "NO_COLOR=1")
	return append(env, extra...)
}
