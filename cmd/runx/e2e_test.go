package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/runxhq/runx/internal/testenv"
)

// binDir holds the built runx binary and the example third-party plugin: the
// scenarios run real binaries, never the test process.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runx-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	for pkg, name := range map[string]string{".": "runx", "../../sdk/examples/echo": "runx-plugin-echo", "../../sdk/examples/notes": "runx-plugin-notes", "../../sdk/examples/postbox": "runx-plugin-postbox", "./testdata/leaky": "runx-plugin-leaky", "./testdata/spawner": "runx-plugin-spawner", "./testdata/slowstart": "runx-plugin-slowstart", "./testdata/foreign": "runx-plugin-foreign"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", pkg, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestScripts(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("RUNX_HOME", filepath.Join(env.WorkDir, ".home"))
			env.Setenv("REPO", repo)
			env.Setenv("BIN", binDir)
			env.Setenv("NO_COLOR", "1")
			// The scenario's directory is its project: runx never climbs
			// above it to a .runx outside the test.
			return testenv.MarkProject(env.WorkDir)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonget":        jsonGet,
			"tamper":         tamper,
			"cmpdir":         cmpDir,
			"jsonfile":       jsonFile,
			"registry-serve": registryServe,
			"notary-serve":   notaryServe,
			"receipt-file":   receiptFileOf,
		},
		RequireExplicitExec: true,
	})
}

// jsonget FILE POINTER VAR: read a value from a JSON document into $VAR
// ("/" is the whole document).
func jsonGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonget file pointer var")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("%s is not one JSON document: %v", args[0], err)
	}
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(args[1], "/"), "/") {
		if args[1] == "/" {
			break // the whole document
		}
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			if i >= len(c) {
				ts.Fatalf("%s: index %d out of range", args[1], i)
			}
			cur = c[i]
		default:
			ts.Fatalf("%s: cannot descend into %v", args[1], cur)
		}
	}
	s, ok := cur.(string)
	if !ok {
		raw, _ := json.Marshal(cur)
		s = string(raw)
	}
	ts.Setenv(args[2], s)
}

// tamper FILE|RECEIPT-ID: change one byte of a file (a receipt id names its
// file in .runx/receipts).
func tamper(ts *testscript.TestScript, neg bool, args []string) {
	path := ts.MkAbs(args[0])
	if hex, ok := strings.CutPrefix(args[0], "sha256:"); ok {
		path = ts.MkAbs(filepath.Join(".runx", "receipts", "sha256-"+hex+".json"))
	}
	raw, err := os.ReadFile(path)
	ts.Check(err)
	i := bytes.Index(raw, []byte(`"outcome":"`))
	if i < 0 {
		i = len(raw) / 2
	} else {
		i += len(`"outcome":"`)
	}
	raw[i] ^= 0x01
	ts.Check(os.WriteFile(path, raw, 0o644))
}

// cmpdir A B: the two directories hold the same files with the same bytes.
func cmpDir(ts *testscript.TestScript, neg bool, args []string) {
	a, b := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	list := func(dir string) map[string]string {
		out := map[string]string{}
		entries, err := os.ReadDir(dir)
		ts.Check(err)
		for _, e := range entries {
			raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
			ts.Check(err)
			out[e.Name()] = string(raw)
		}
		return out
	}
	la, lb := list(a), list(b)
	same := len(la) == len(lb)
	for name, content := range la {
		if lb[name] != content {
			same = false
			ts.Logf("differs: %s", name)
		}
	}
	if same == neg {
		ts.Fatalf("cmpdir %s %s: same=%v", args[0], args[1], same)
	}
}

// jsonfile FILE TEXT: write TEXT with $VARS expanded, after checking it is
// JSON, so resume documents can carry digests a run reported.
func jsonFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: jsonfile file json")
	}
	text := os.Expand(args[1], ts.Getenv)
	if !json.Valid([]byte(text)) {
		ts.Fatalf("jsonfile: not JSON: %s", text)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(text), 0o644))
}
