package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// registryServe DATA: start `runx registry serve` on a free loopback port
// over the data directory DATA, wait for its readiness line (the first line
// it prints: never a sleep), and set $REGISTRY to its URL and $REGISTRY_KEY
// to its public key. The server stops (SIGTERM) when the script ends.
func registryServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: registry-serve data-dir")
	}
	cmd := exec.Command(filepath.Join(binDir, "runx"), "registry", "serve", "--addr", "127.0.0.1:0", "--data", ts.MkAbs(args[0]), "--json")
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
		ts.Fatalf("registry serve printed no readiness line: %v", err)
	}
	// Whatever it prints later is read, so it never blocks on its stdout.
	go func() { _, _ = io.Copy(io.Discard, rd) }()
	var ready struct {
		Status, URL, Key string
	}
	if err := json.Unmarshal(line, &ready); err != nil || ready.Status != "listening" || ready.URL == "" {
		ts.Fatalf("registry serve's readiness line is %q", line)
	}
	ts.Setenv("REGISTRY", ready.URL)
	ts.Setenv("REGISTRY_KEY", ready.Key)
}
