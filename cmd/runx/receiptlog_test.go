package main

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

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/internal/testenv"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/run"
)

// The receipt log's restore crosses processes: an MCP session serves calls
// in this process on a kernel over the built runx's plugins, the store is
// damaged as a power cut would leave it, and a second runx process (history,
// verify) opens the project and repairs it. The MCP server itself is tested
// in kernel/mcp.

// mcpSession opens a kernel on ws whose first-party plugins the built runx
// serves, and connects a go-sdk client to an MCP server over it that serves
// refs.
func mcpSession(t *testing.T, ws string, refs ...string) (*run.Kernel, *mcp.ClientSession) {
	t.Helper()
	k, err := run.Open(context.Background(), run.Options{Workspace: ws, HomeDir: filepath.Join(ws, ".home"), Self: filepath.Join(binDir, "runx"), FirstParty: firstPartyInfo(), RunxVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	srv, err := kmcp.New(k, kmcp.Options{Refs: refs})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait(); cancel() })
	return k, cs
}

// mcpCall calls a tool and returns its result and structured content.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &out)
	return res, out
}

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
	hello, _ := filepath.Abs("../../examples/hello-world")
	wrap, _ := filepath.Abs("../../kernel/mcp/testdata/reuse/wrap")
	k, cs := mcpSession(t, ws, hello, wrap)
	var roots []string
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"hello-world", map[string]any{"message": "one"}},
		{"wrap", map[string]any{"word": "two"}},
		{"hello-world", map[string]any{"message": "three"}},
	} {
		res, out := mcpCall(t, cs, c.tool, c.args)
		if res.IsError || out["status"] != "sealed" {
			t.Fatalf("%s: %v", c.tool, out)
		}
		roots = append(roots, str(out, "receipt_id"))
	}

	store := filepath.Join(ws, ".runx", "receipts")
	index := filepath.Join(store, "index.jsonl")
	before := readStore(t, store)
	names := receiptNames(before)
	if len(names) < 7 { // 2 + (child step, child, step, root) + 2
		t.Fatalf("store holds %d receipts, want at least 7: %v", len(names), names)
	}
	key, _ := filepath.Abs(store)
	rows, _, err := k.JournalForTest().ReceiptLog().LoggedFiles(context.Background(), key)
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
		cmd := exec.Command(filepath.Join(binDir, "runx"), args...)
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
	if rows, _, err := k.JournalForTest().ReceiptLog().LoggedFiles(context.Background(), key); err != nil || len(rows) != 0 {
		t.Fatalf("after the restore's flush the log holds %d rows (%v), want 0", len(rows), err)
	}

	// Opening again changes nothing.
	runx(ws, "history", "--json")
	if again := readStore(t, store); !sameStore(again, after) {
		t.Fatal("a second open changed the restored store")
	}

	// A store moved aside: a call's files are logged, the store renamed,
	// and the next open makes a new store without them.
	if res, out := mcpCall(t, cs, "hello-world", map[string]any{"message": "four"}); res.IsError {
		t.Fatalf("call: %v", out)
	}
	if rows, _, err := k.JournalForTest().ReceiptLog().LoggedFiles(context.Background(), key); err != nil || len(rows) == 0 {
		t.Fatalf("the fourth call logged %d rows (%v)", len(rows), err)
	}
	if err := os.Rename(store, store+".old"); err != nil {
		t.Fatal(err)
	}
	runx(ws, "history", "--json")
	if fresh := readStore(t, store); len(fresh) != 1 || len(fresh["index.jsonl"]) != 0 {
		t.Fatalf("the new store was given the old store's files: %v", receiptNames(fresh))
	}
	if rows, _, err := k.JournalForTest().ReceiptLog().LoggedFiles(context.Background(), key); err != nil || len(rows) != 0 {
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

// A sealed call's root index line is appended after the seal's commit, with
// no flush: the journal's log of receipt files holds it. A power cut that
// loses it (simulated: the index's last line cut off while the server is
// still up, before any flush) is repaired when the next kernel opens:
// `runx history` lists the run again and `runx verify` verifies its tree,
// and a repaired index is not repaired twice.
func TestLostRootIndexLineIsRepaired(t *testing.T) {
	ws := testenv.Dir(t)
	hello, _ := filepath.Abs("../../examples/hello-world")
	_, cs := mcpSession(t, ws, hello)
	res, out := mcpCall(t, cs, "hello-world", map[string]any{"message": "hi"})
	if res.IsError {
		t.Fatalf("call: %v", out)
	}
	rootID := str(out, "receipt_id")
	if rootID == "" {
		t.Fatalf("no receipt id in %v", out)
	}
	index := filepath.Join(ws, ".runx", "receipts", "index.jsonl")
	raw, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndexByte(raw[:len(raw)-1], '\n') + 1
	if !bytes.Contains(raw[cut:], []byte(rootID)) || !bytes.Contains(raw[cut:], []byte(`"root":true`)) {
		t.Fatalf("the index's last line is not the root's: %s", raw[cut:])
	}
	if err := os.WriteFile(index, raw[:cut], 0o600); err != nil {
		t.Fatal(err)
	}

	runx := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(filepath.Join(binDir, "runx"), args...)
		cmd.Dir = ws
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
	hist := runx("history", "--json")
	if err := json.Unmarshal(hist, &history); err != nil {
		t.Fatalf("history: %v\n%s", err, hist)
	}
	if len(history.Runs) != 1 || history.Runs[0].ReceiptID != rootID {
		t.Fatalf("history after the repair lists %s, want %s", hist, rootID)
	}
	var report struct {
		Status string `json:"status"`
	}
	ver := runx("verify", rootID, "--json")
	if err := json.Unmarshal(ver, &report); err != nil || report.Status != "verified" {
		t.Fatalf("verify after the repair: %v\n%s", err, ver)
	}
	repaired, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(repaired, raw) {
		t.Fatalf("repaired index differs from the one before the cut:\n%s\nwant\n%s", repaired, raw)
	}
}
