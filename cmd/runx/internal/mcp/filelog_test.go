package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/runxhq/runx/internal/testenv"
	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// A sealed call makes one barrier: the seal's commit, which logs every
// receipt file the call wrote (bytes and index line) in the journal. A
// power cut may then lose or tear any receipt file and any index line not
// yet flushed. Simulated with the server still up (nothing flushed since
// the calls): one receipt file deleted, one cut in half, one zeroed, the
// index cut back to its first line with a hole of zeros after it. The next
// kernel to open (`runx history`) restores every file byte for byte and
// every index line, flushes the store once and deletes the log's rows;
// `runx verify` verifies each tree, the child run's included; opening
// again changes nothing; and a store moved aside is not given the old
// store's files.
func TestPowerCutRestoresReceiptsFromTheLog(t *testing.T) {
	ws := testenv.Dir(t)
	k := openKernel(t, ws)
	hello, _ := filepath.Abs("../../../../examples/hello-world")
	wrap, _ := filepath.Abs("testdata/reuse/wrap")
	cs := connect(t, k, kmcp.Options{Refs: []string{hello, wrap}}, nil)
	var roots []string
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"hello-world", map[string]any{"message": "one"}},
		{"wrap", map[string]any{"word": "two"}},
		{"hello-world", map[string]any{"message": "three"}},
	} {
		res, out := call(t, cs, c.tool, c.args)
		if res.IsError || out["status"] != "sealed" {
			t.Fatalf("%s: %v", c.tool, out)
		}
		roots = append(roots, str(out["receipt_id"]))
	}

	store := filepath.Join(ws, ".runx", "receipts")
	index := filepath.Join(store, "index.jsonl")
	before := readStore(t, store)
	names := receiptNames(before)
	if len(names) < 7 { // 2 + (child step, child, step, root) + 2
		t.Fatalf("store holds %d receipts, want at least 7: %v", len(names), names)
	}
	key, _ := filepath.Abs(store)
	rows, _, err := k.Journal.LoggedFiles(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string][]byte{}
	for _, r := range rows {
		logged[r.Name] = r.Bytes
	}
	for _, n := range names {
		if !bytes.Equal(logged[n], before[n]) {
			t.Fatalf("receipt %s is not logged with its bytes (%d rows)", n, len(rows))
		}
	}

	// The power cut.
	if err := os.Remove(filepath.Join(store, names[0])); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, names[1]), before[names[1]][:len(before[names[1]])/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, names[2]), make([]byte, len(before[names[2]])), 0o600); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(before["index.jsonl"], []byte("\n"))
	cut := append(append([]byte{}, lines[0]...), make([]byte, len(lines[1]))...)
	if err := os.WriteFile(index, cut, 0o600); err != nil {
		t.Fatal(err)
	}

	runx := func(dir string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(runxBin, args...)
		cmd.Dir = dir
		cmd.Env = testenv.Env(ws)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("runx %v: %v\n%s", args, err, out)
		}
		return out
	}
	var history struct {
		Runs []struct {
			ReceiptID string `json:"receipt_id"`
		} `json:"runs"`
	}
	hist := runx(ws, "history", "--json")
	if err := json.Unmarshal(hist, &history); err != nil {
		t.Fatalf("history: %v\n%s", err, hist)
	}
	listed := map[string]bool{}
	for _, r := range history.Runs {
		listed[r.ReceiptID] = true
	}
	for _, id := range roots {
		if !listed[id] {
			t.Fatalf("history after the restore does not list %s:\n%s", id, hist)
		}
		var report struct {
			Status string `json:"status"`
		}
		ver := runx(ws, "verify", id, "--json")
		if err := json.Unmarshal(ver, &report); err != nil || report.Status != "verified" {
			t.Fatalf("verify %s after the restore: %v\n%s", id, err, ver)
		}
	}
	after := readStore(t, store)
	for _, n := range names {
		if !bytes.Equal(after[n], before[n]) {
			t.Fatalf("receipt %s is not restored byte for byte", n)
		}
	}
	if got, want := indexLines(after["index.jsonl"]), indexLines(before["index.jsonl"]); strings.Join(got, "") != strings.Join(want, "") {
		t.Fatalf("restored index lines:\n%s\nwant\n%s", strings.Join(got, ""), strings.Join(want, ""))
	}
	if rows, _, err := k.Journal.LoggedFiles(context.Background(), key); err != nil || len(rows) != 0 {
		t.Fatalf("after the restore's flush the log holds %d rows (%v), want 0", len(rows), err)
	}

	// Opening again changes nothing.
	runx(ws, "history", "--json")
	if again := readStore(t, store); !sameStore(again, after) {
		t.Fatal("a second open changed the restored store")
	}

	// A store moved aside: a call's files are logged, the store renamed,
	// and the next open makes a new store without them.
	if res, out := call(t, cs, "hello-world", map[string]any{"message": "four"}); res.IsError {
		t.Fatalf("call: %v", out)
	}
	if rows, _, err := k.Journal.LoggedFiles(context.Background(), key); err != nil || len(rows) == 0 {
		t.Fatalf("the fourth call logged %d rows (%v)", len(rows), err)
	}
	if err := os.Rename(store, store+".old"); err != nil {
		t.Fatal(err)
	}
	runx(ws, "history", "--json")
	if fresh := readStore(t, store); len(fresh) != 1 || len(fresh["index.jsonl"]) != 0 {
		t.Fatalf("the new store was given the old store's files: %v", receiptNames(fresh))
	}
	if rows, _, err := k.Journal.LoggedFiles(context.Background(), key); err != nil || len(rows) != 0 {
		t.Fatalf("rows of a store moved aside were kept: %d (%v)", len(rows), err)
	}
}

// readStore reads every file of a receipt store by name.
func readStore(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = raw
	}
	return out
}

func receiptNames(files map[string][]byte) []string {
	var names []string
	for n := range files {
		if strings.HasPrefix(n, "sha256-") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// indexLines is the index's whole lines, holes of zeros left out, sorted.
func indexLines(raw []byte) []string {
	var out []string
	for _, l := range bytes.SplitAfter(bytes.ReplaceAll(raw, []byte{0}, nil), []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, string(l))
		}
	}
	sort.Strings(out)
	return out
}

func sameStore(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for n, raw := range a {
		if !bytes.Equal(raw, b[n]) {
			return false
		}
	}
	return true
}

// The log is bounded: once a session has logged 64 receipt files, one
// syncfs of the store (in the background) makes them durable and their
// rows are deleted, and closing the kernel does the same for what is left.
func TestReceiptLogIsFlushedAtItsBound(t *testing.T) {
	ws := testenv.Dir(t)
	k := openKernel(t, ws)
	hello, _ := filepath.Abs("../../../../examples/hello-world")
	cs := connect(t, k, kmcp.Options{Refs: []string{hello}}, nil)
	key, _ := filepath.Abs(filepath.Join(ws, ".runx", "receipts"))
	most, dropped := 0, false
	for i := 0; i < 200 && !dropped; i++ {
		if res, out := call(t, cs, "hello-world", map[string]any{"message": "m"}); res.IsError {
			t.Fatalf("call %d: %v", i, out)
		}
		rows, _, err := k.Journal.LoggedFiles(context.Background(), key)
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
	if rows, _, err := k2.Journal.LoggedFiles(context.Background(), key); err != nil || len(rows) != 0 {
		t.Fatalf("after Close the log holds %d rows (%v), want 0", len(rows), err)
	}
}
