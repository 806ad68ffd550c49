package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/internal/testenv"
)

// guideBlock is one fenced block of a guide: its info string's words and
// its lines.
type guideBlock struct {
	info []string
	body string
}

// guideBlocks reads a Markdown file's fenced blocks in order.
func guideBlocks(t *testing.T, path string) []guideBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []guideBlock
	var cur *guideBlock
	var body strings.Builder
	for s := bufio.NewScanner(f); s.Scan(); {
		line := s.Text()
		fence, isFence := strings.CutPrefix(line, "```")
		switch {
		case isFence && cur == nil:
			cur = &guideBlock{info: strings.Fields(fence)}
			body.Reset()
		case isFence:
			cur.body = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
	}
	if cur != nil {
		t.Fatalf("%s: a fenced block is never closed", path)
	}
	return blocks
}

// docs/getting-started.md runs as written. Its blocks are taken in order in
// one shell session, in an empty project with its own runx home: a block
// whose info string is `sh` runs; one whose info string is a language and a
// path (```yaml skills/note/run.yaml) is written to that path; any other
// (text, `sh install`) is shown, not run. The guide's own walk checks itself
// (set -e: every command must succeed, runx test must pass); the test then
// checks what the walk must have left.
func TestGettingStartedRuns(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	blocks := guideBlocks(t, filepath.Join(repo, "docs", "getting-started.md"))
	var script strings.Builder
	script.WriteString("set -eu\n")
	ran, wrote := 0, 0
	for i, b := range blocks {
		switch {
		case len(b.info) == 1 && b.info[0] == "sh":
			script.WriteString(b.body)
			ran++
		case len(b.info) == 2 && b.info[0] != "sh":
			delim := fmt.Sprintf("RUNX_GUIDE_BLOCK_%d", i)
			fmt.Fprintf(&script, "cat > %q <<'%s'\n%s%s\n", b.info[1], delim, b.body, delim)
			wrote++
		}
	}
	if ran < 8 || wrote < 5 {
		t.Fatalf("the guide has %d runnable sh blocks and %d file blocks; the walk needs its commands and its skill", ran, wrote)
	}
	dir := t.TempDir()
	testenv.Project(t, dir)
	cmd := exec.Command("sh", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"RUNX_HOME="+filepath.Join(dir, ".home"), "HOME="+filepath.Join(dir, ".userhome"), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the guide's walk failed: %v\n%s", err, out)
	}
	note, err := os.ReadFile(filepath.Join(dir, "tour", "notes", "note.md"))
	if err != nil || !strings.HasPrefix(string(note), "# Release 1.2\n") {
		t.Fatalf("the approved write left no note: %v %q", err, note)
	}
	for _, want := range []string{"needs_agent", "needs_approval", "note#write completed", "verified sha256:", "3 passed, 0 failed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walk never printed %q:\n%s", want, out)
		}
	}
}
