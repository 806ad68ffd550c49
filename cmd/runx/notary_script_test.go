package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// notaryServe DATA: start `runx notary serve` on a free loopback port over
// DATA, wait on its readiness line, set $NOTARY to its URL and write its
// public key to notary.pem; the server is stopped when the script ends.
func notaryServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: notary-serve data-dir")
	}
	cmd := exec.Command(filepath.Join(binDir, "runx"), "notary", "serve", "--addr", "127.0.0.1:0", "--data", ts.MkAbs(args[0]), "--json")
	cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{"RUNX_HOME", "HOME", "PATH", "TMPDIR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	out, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	ts.Defer(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	rd := bufio.NewReader(out)
	line, err := rd.ReadBytes('\n')
	if err != nil {
		ts.Fatalf("notary serve printed no readiness line: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, rd) }()
	var ready struct {
		Status, URL string
		PublicKey   string `json:"public_key"`
	}
	if err := json.Unmarshal(line, &ready); err != nil || ready.Status != "listening" || ready.URL == "" {
		ts.Fatalf("notary serve's readiness line is %q", line)
	}
	ts.Setenv("NOTARY", ready.URL)
	ts.Check(os.WriteFile(ts.MkAbs("notary.pem"), []byte(ready.PublicKey), 0o644))
}

// receiptFile VAR ID: set $VAR to the file of receipt ID in .runx/receipts.
func receiptFileOf(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: receipt-file var receipt-id")
	}
	hex, ok := strings.CutPrefix(args[1], "sha256:")
	if !ok {
		ts.Fatalf("receipt-file: %q is not a receipt id", args[1])
	}
	ts.Setenv(args[0], ts.MkAbs(filepath.Join(".runx", "receipts", "sha256-"+hex+".json")))
}
