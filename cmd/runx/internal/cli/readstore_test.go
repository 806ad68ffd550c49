package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run"
)

// readOptionsAfterNoProject resolves the options of a read in ws (with
// the environment env gives), checks as readOptions does that ws holds no
// project state, runs between (what a concurrent run does in that window)
// and returns what the read then opens.
func readOptionsAfterNoProject(t *testing.T, ws string, env map[string]string, between func()) run.Options {
	t.Helper()
	o := run.Options{
		Cwd: ws, Workspace: ws, HomeDir: filepath.Join(ws, ".home"), RunxVersion: Version,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	resolved, err := run.ResolveOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(resolved.ProjectDir); !os.IsNotExist(err) {
		t.Fatalf("the workspace must hold no project state yet: %v", err)
	}
	between()
	ro, cleanup, err := emptyReadOptions(o, resolved)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	return ro
}

// openRead opens a kernel over ro as ReadKernel does; it must open.
func openRead(t *testing.T, ro run.Options) {
	t.Helper()
	k, err := run.Open(context.Background(), ro)
	if err != nil {
		var out bytes.Buffer
		ReportError(&IO{Out: &out, Err: &out}, true, err)
		t.Fatalf("a read with no project must open its own empty state:\n%s", out.String())
	}
	k.Close()
}

// A read that finds no .runx chooses an empty state of its own, and keeps
// that choice when a concurrent run creates the project's receipt store
// right after the check: that store holds files but no index yet, and
// opening it failed the read with receipt_store_unrecognized
// (TestCommandFollowedAsProcess, once in CI).
func TestReadWithNoProjectNeverOpensTheProjectsStore(t *testing.T) {
	ws := t.TempDir()
	half := filepath.Join(ws, ".runx", "receipts")
	ro := readOptionsAfterNoProject(t, ws, nil, func() {
		// the concurrent run's store, begun but holding no index yet
		if err := os.MkdirAll(half, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(half, "sha256-0.json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	openRead(t, ro)
	if ro.ReceiptDir == half {
		t.Fatalf("a read with no project chose the project's own receipt store %s", half)
	}
	if _, err := os.Lstat(filepath.Join(half, receipt.IndexFile)); !os.IsNotExist(err) {
		t.Fatalf("the read must leave the run's store as it found it: %v", err)
	}
}

// A receipt store named apart from the project (RUNX_RECEIPT_DIR) is still
// the one a read with no project reads; one named but absent is not made.
func TestReadWithNoProjectReadsAStoreNamedApart(t *testing.T) {
	ws := t.TempDir()
	named := filepath.Join(ws, "kept-receipts")
	if _, err := receipt.Open(named); err != nil {
		t.Fatal(err)
	}
	ro := readOptionsAfterNoProject(t, ws, map[string]string{"RUNX_RECEIPT_DIR": named}, func() {})
	if ro.ReceiptDir != named {
		t.Fatalf("a store named apart must be read: got %s, want %s", ro.ReceiptDir, named)
	}
	openRead(t, ro)

	absent := filepath.Join(ws, "no-receipts")
	ro = readOptionsAfterNoProject(t, ws, map[string]string{"RUNX_RECEIPT_DIR": absent}, func() {})
	if ro.ReceiptDir == absent {
		t.Fatalf("a named store that does not exist must not be chosen (a read makes none)")
	}
	openRead(t, ro)
	if _, err := os.Lstat(absent); !os.IsNotExist(err) {
		t.Fatalf("a read must not create the named store %s: %v", absent, err)
	}
}
