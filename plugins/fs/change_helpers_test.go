package fs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

var callSeq atomic.Int64

// changeContext is a call context for the change tools: a run, a fresh call
// id, and the project directory .runx inside the workspace, as the kernel
// passes it.
func changeContext(root string) plugin.Context {
	pc := wsContext(root)
	pc.RunID = "run-1"
	pc.StepAddress = "edit"
	pc.Attempt = 1
	pc.CallID = fmt.Sprintf("run-1#edit/%d@1", callSeq.Add(1))
	pc.Binding = projectBinding(filepath.Join(root, ".runx"))
	return pc
}

func projectBinding(dir string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"project_dir": dir})
	return b
}

func str(s string) *string { return &s }

func digest(s string) string { return DigestBytes([]byte(s)) }

// snapshot maps every path beneath root (files by content, directories by
// a trailing slash, links by target), leaving .runx out: it is what
// "byte-identical workspace" is checked against.
func snapshot(tb testing.TB, root string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case rel == ".runx":
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.IsDir():
			out[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, _ := d.Info()
			out[rel] = fmt.Sprintf("%v %s", info.Mode().Perm(), b)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func sameTree(tb testing.TB, want, got map[string]string) {
	tb.Helper()
	for k, v := range want {
		if got[k] != v {
			tb.Errorf("%s: want %q, got %q", k, v, got[k])
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			tb.Errorf("unexpected %s (%q)", k, v)
		}
	}
}

func readFile(tb testing.TB, p string) string {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func loadJournal(tb testing.TB, path string) *journalRecord {
	tb.Helper()
	rec, err := readJournal(path)
	if err != nil || rec == nil {
		tb.Fatalf("journal %s: %v", path, err)
	}
	return rec
}

// runChild invokes one call in a child process (the test binary under
// childEnv) with extra environment, returning its exit code and result.
func runChild(tb testing.TB, capability string, pc plugin.Context, input any, env ...string) (int, *childResult) {
	tb.Helper()
	cmd, stdout := startChild(tb, capability, pc, input, env...)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	if code != 0 {
		return code, nil
	}
	var res childResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		tb.Fatalf("child printed %q: %v", stdout.String(), err)
	}
	return code, &res
}

func startChild(tb testing.TB, capability string, pc plugin.Context, input any, env ...string) (*exec.Cmd, *bytes.Buffer) {
	tb.Helper()
	in, err := json.Marshal(input)
	if err != nil {
		tb.Fatal(err)
	}
	req, _ := json.Marshal(childCall{Capability: capability, Context: pc, Input: in})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=invoke"}, env...)...)
	cmd.Stdin = strings.NewReader(string(req))
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd, &stdout
}
