package mcp_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/internal/testenv"
	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// The log is bounded: once a session has logged 64 receipt files, one
// syncfs of the store (in the background) makes them durable and their
// rows are deleted, and closing the kernel does the same for what is left.
func TestReceiptLogIsFlushedAtItsBound(t *testing.T) {
	ws := testenv.Dir(t)
	k := openKernel(t, ws)
	hello, _ := filepath.Abs("../../examples/hello-world")
	cs := connect(t, k, kmcp.Options{Refs: []string{hello}}, nil)
	key, _ := filepath.Abs(filepath.Join(ws, ".runx", "receipts"))
	most, dropped := 0, false
	for i := 0; i < 200 && !dropped; i++ {
		if res, out := call(t, cs, "hello-world", map[string]any{"message": "m"}); res.IsError {
			t.Fatalf("call %d: %v", i, out)
		}
		rows, _, err := k.JournalForTest().ReceiptLog().LoggedFiles(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		dropped = dropped || len(rows) < most
		most = max(most, len(rows))
	}
	// The flush starts at 64 rows and runs beside later calls (two rows
	// each), so the log may pass 64 by what they log meanwhile.
	if !dropped || most > 64+2*32 {
		t.Fatalf("the log grew to %d rows (dropped: %v), want a flush from 64", most, dropped)
	}
	if res, out := call(t, cs, "hello-world", map[string]any{"message": "last"}); res.IsError {
		t.Fatalf("call: %v", out)
	}
	cs.Close()
	k.Close()
	k2 := openKernel(t, ws)
	if rows, _, err := k2.JournalForTest().ReceiptLog().LoggedFiles(context.Background(), key); err != nil || len(rows) != 0 {
		t.Fatalf("after Close the log holds %d rows (%v), want 0", len(rows), err)
	}
}
