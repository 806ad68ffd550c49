//go:build linux

package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A pinned plugin runs under the launcher: runx's record of its pid is the
// launcher's, the plugin is the launcher's child in the launcher's group,
// and when runx stops the plugin, both are gone.
func TestPinnedPluginRunsUnderTheLauncher(t *testing.T) {
	s, path := thirdPartySupervisor(t, buildEcho(t))
	pin(t, filepath.Dir(filepath.Dir(path)), "echo", path)
	res, ref, err := s.Invoke(context.Background(), call("echo.shout", `{"message":"hi"}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Pid int }
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	ppid, pgrp := statOf(t, out.Pid)
	if ref.Pid == 0 || ref.Pid == out.Pid || ppid != ref.Pid || pgrp != ref.Pid {
		t.Fatalf("plugin %d (parent %d, group %d); recorded pid %d: want the launcher, its parent and group leader", out.Pid, ppid, pgrp, ref.Pid)
	}
	s.Close()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range []int{ref.Pid, out.Pid} {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived the stop", pid)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// The launcher checks the binary against the pin through the descriptor it
// then executes, and refuses one that is not the pinned one with its own
// exit status, starting nothing.
func TestLauncherRefusesABinaryNotPinned(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "plugin")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := FileSHA256(script)
	if err != nil {
		t.Fatal(err)
	}
	run := func(pin []byte) (int, string) {
		cmd := exec.Command(self, launchArgs(&Launch{Path: script, SHA256: pin})...)
		cmd.Env = []string{"RUNX_PLUGIN_MAGIC_COOKIE=x"}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), stderr.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	}
	other := bytes.Clone(sum)
	other[0] ^= 1
	if code, stderr := run(other); code != launchExitChecksum || !strings.Contains(stderr, "plugin_checksum_mismatch") {
		t.Fatalf("want exit %d naming plugin_checksum_mismatch, got %d: %s", launchExitChecksum, code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the launcher ran a binary that is not the pinned one")
	}
	// The pinned bytes run (a script too, read through the descriptor).
	if code, stderr := run(sum); code != 0 {
		t.Fatalf("the pinned binary: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the launcher did not run the pinned binary")
	}
}

// statOf reads a process's parent and group from /proc.
func statOf(t *testing.T, pid int) (ppid, pgrp int) {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	return ppid, pgrp
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
