package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// An MCP session loads its package on every call, with what it read before
// kept in memory (the SKILL.md front matter and run.yaml readings, the file
// digests, the loaded package and its module sources). An edit between
// two calls, to SKILL.md, run.yaml or a module the entry module imports,
// is what the next call runs and seals. Each edit is made after two calls
// of a package whose files are old enough to be remembered, so the call
// before it was served from memory.
func TestEditsBetweenCallsAreSeen(t *testing.T) {
	pkgDir := filepath.Join(t.TempDir(), "hello-world")
	copyPackage(t, "../../examples/hello-world", pkgDir)
	waitSettled(t)
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{pkgDir}}, nil)

	var want string
	greetingOf := func(w string) string {
		t.Helper()
		want = w
		res, out := call(t, cs, "hello-world", map[string]any{"message": "hi"})
		if res.IsError || out["status"] != "sealed" {
			t.Fatalf("call: %v", out)
		}
		if got := out["result"].(map[string]any)["greeting"]; got != want {
			t.Fatalf("greeting %v, want %q", got, want)
		}
		return str(out["package_digest"])
	}
	edit := func(name, old, new string) {
		t.Helper()
		greetingOf(want) // a second call since the files settled
		path := filepath.Join(pkgDir, name)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), old) {
			t.Fatalf("%s holds no %q", name, old)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(raw), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	first := greetingOf("hi, world")
	if again := greetingOf("hi, world"); again != first || first == "" {
		t.Fatalf("an unchanged package changed digest: %q then %q", first, again)
	}
	edit("greeting.mjs", "${message}, ${name}", "${message}! ${name}")
	afterModule := greetingOf("hi! world")
	waitSettled(t)
	edit("run.yaml", "default: world", "default: earth")
	afterProfile := greetingOf("hi! earth")
	waitSettled(t)
	edit("SKILL.md", "The first skill to run with runx.", "The first skill run with runx.")
	afterSkill := greetingOf("hi! earth")
	seen := map[string]bool{}
	for _, d := range []string{first, afterModule, afterProfile, afterSkill} {
		if seen[d] {
			t.Fatalf("an edit left the package digest as it was: %q %q %q %q", first, afterModule, afterProfile, afterSkill)
		}
		seen[d] = true
	}
}

func copyPackage(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"SKILL.md", "run.yaml", "compose.mjs", "greeting.mjs"} {
		raw, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// waitSettled waits until every file written before the call
// has a change time older than the stamp caches' racy window (2 s,
// kernel/pkg/digestcache.go), so loads of it are remembered: a change time
// cannot be set back, so only time passing makes it old.
func waitSettled(t *testing.T) {
	t.Helper()
	time.Sleep(2*time.Second + 100*time.Millisecond)
}
