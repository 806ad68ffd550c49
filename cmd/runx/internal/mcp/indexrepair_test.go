package mcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/internal/testenv"
	kmcp "github.com/runxhq/runx/kernel/mcp"
)

// A sealed call's root index line is appended after the seal's commit, with
// no flush: the journal's log of receipt files holds it. A power cut that
// loses it (simulated: the index's last line cut off while the server is
// still up, before any flush) is repaired when the next kernel opens:
// `runx history` lists the run again and `runx verify` verifies its tree,
// and a repaired index is not repaired twice.
func TestLostRootIndexLineIsRepaired(t *testing.T) {
	ws := testenv.Dir(t)
	k := openKernel(t, ws)
	hello, _ := filepath.Abs("../../../../examples/hello-world")
	cs := connect(t, k, kmcp.Options{Refs: []string{hello}}, nil)
	res, out := call(t, cs, "hello-world", map[string]any{"message": "hi"})
	if res.IsError {
		t.Fatalf("call: %v", out)
	}
	rootID := str(out["receipt_id"])
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
		cmd := exec.Command(runxBin, args...)
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
