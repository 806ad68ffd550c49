package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/pkg"
)

// inputsCeilingRSS is the peak memory a run may take for an --inputs
// document at its 64 MiB ceiling: the document, its decoded value, the
// run's record of it (in the Go heap and in SQLite's), measured at 425-441
// MiB once the record and the step's digest are written straight from the
// value and the module's ceiling is checked before its input is written
// (sdk/canon's plain writer). Before that it took 570-940 MiB, and at
// first 943 MB, sent whole to the module worker and ended in its timeout
// after 20 s.
const inputsCeilingRSS = 512 << 20

// TestInputsAtTheCeilingStayBounded runs a module step given an --inputs
// document of exactly 64 MiB: it is refused before anything is sent, with
// module_input_too_large naming the module's ceiling, within a stated
// memory bound.
func TestInputsAtTheCeilingStayBounded(t *testing.T) {
	e := newRunxEnv(t)
	e.write("big/SKILL.md", "---\nname: big\ndescription: Takes a message.\n---\nManual.\n")
	e.write("big/run.yaml", "minimum_runx: 0.1.0\nmethods:\n  run:\n    inputs:\n      message: { type: string, required: true }\n    steps:\n      - id: m\n        tool: { module: m.mjs }\n        inputs: { message: $input.message }\n")
	e.write("big/m.mjs", "export default function ({ message }) { return { length: message.length }; }\n")
	prefix, suffix := []byte(`{"message":"`), []byte(`"}`)
	doc := make([]byte, 0, pkg.MaxInputsDocumentSize)
	doc = append(doc, prefix...)
	doc = append(doc, bytes.Repeat([]byte("a"), pkg.MaxInputsDocumentSize-len(prefix)-len(suffix))...)
	doc = append(doc, suffix...)
	if err := os.WriteFile(filepath.Join(e.dir, "big.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	doc = nil
	cmd := e.command("skill", "./big", "--inputs", "big.json", "--json")
	start := time.Now()
	out, _ := cmd.Output()
	elapsed := time.Since(start)
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("64 MiB --inputs: peak RSS %d MiB, %v", rss>>20, elapsed.Round(time.Millisecond))
	var r struct {
		Outcome string `json:"outcome"`
		Error   struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("not a run document: %v: %.300s", err, out)
	}
	if r.Error.Code != "module_input_too_large" || !strings.Contains(r.Error.Message, "4194304 byte ceiling") {
		t.Fatalf("got %s %q, want module_input_too_large naming its ceiling", r.Error.Code, r.Error.Message)
	}
	if rss > inputsCeilingRSS {
		t.Fatalf("peak RSS %d MiB is over the %d MiB bound", rss>>20, inputsCeilingRSS>>20)
	}
}
