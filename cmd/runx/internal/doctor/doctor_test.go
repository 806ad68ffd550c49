package doctor

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// runx doctor takes no argument, only --json.
func TestDoctorFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"doctor"}, Want: func(o *Options) {}},
		{Args: []string{"doctor", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"doctor", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"doctor", "--plugins"}, Want: func(o *Options) { o.Plugins = true }},
		{Args: []string{"doctor", "extra"}},
		{Args: []string{"doctor", "--nosuch"}},
	})
}

// checksIn runs the checks for a workspace and home of the test's own.
func checksIn(t *testing.T, ws, home string) []Check {
	t.Helper()
	env := map[string]string{"RUNX_HOME": home}
	return Checks(run.Options{Workspace: ws, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
}

func find(checks []Check, name string) []Check {
	var out []Check
	for _, c := range checks {
		if c.Check == name {
			out = append(out, c)
		}
	}
	return out
}

// A secret file others can read fails with the chmod that fixes it, and its
// value is never shown.
func TestDoctorSecretReadableByOthersFails(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	secrets := filepath.Join(home, "secrets")
	if err := os.MkdirAll(secrets, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secrets, "TOKEN"), []byte("s3cr3t-value\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	got := find(checksIn(t, dir, home), "secrets")
	if len(got) != 1 || got[0].Status != StatusFail || got[0].Fix != "chmod 600 "+filepath.Join(secrets, "TOKEN") {
		t.Fatalf("secrets check = %+v, want one fail naming chmod 600", got)
	}
	for _, c := range checksIn(t, dir, home) {
		if strings.Contains(c.Detail+c.Fix, "s3cr3t") {
			t.Fatalf("check %s shows the secret: %+v", c.Check, c)
		}
	}
}

// A pinned plugin whose binary changed since its pin fails, naming the pin
// command; one that matches is ok. Neither is started.
func TestDoctorPinnedPluginChecksum(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, ".runx")
	plugins := filepath.Join(project, "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"good", "moved"} {
		if err := os.WriteFile(filepath.Join(plugins, "runx-plugin-"+n), []byte("#!/bin/sh\nexit 9\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := host.FileSHA256(filepath.Join(plugins, "runx-plugin-good"))
	if err != nil {
		t.Fatal(err)
	}
	hexSum := hex.EncodeToString(sum)
	lock := &host.Lock{Plugins: map[string]host.LockEntry{"good": {SHA256: hexSum}, "moved": {SHA256: strings.Repeat("0", 64)}}}
	if err := host.WriteLock(project, lock); err != nil {
		t.Fatal(err)
	}
	checks := checksIn(t, dir, filepath.Join(dir, "home"))
	if c := find(checks, "plugin:good"); len(c) != 1 || c[0].Status != StatusOK {
		t.Fatalf("plugin:good = %+v, want ok", c)
	}
	if c := find(checks, "plugin:moved"); len(c) != 1 || c[0].Status != StatusFail || c[0].Fix != "if the new binary is trusted, run runx plugin pin moved" {
		t.Fatalf("plugin:moved = %+v, want fail naming runx plugin pin", c)
	}
}

// The workspace is found as the kernel finds it and doctor says why; it
// creates no .runx and no runx home finding that out.
func TestDoctorWorkspaceSaysWhyAndCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	// skills/ marks dir as the workspace, so the search stops there.
	if err := os.Mkdir(filepath.Join(dir, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	checks := Checks(run.Options{Cwd: dir, LookupEnv: func(k string) (string, bool) {
		if k == "RUNX_HOME" {
			return filepath.Join(dir, "home"), true
		}
		return "", false
	}})
	ws := find(checks, "workspace")
	if len(ws) != 1 || ws[0].Status != StatusOK || !strings.Contains(ws[0].Detail, dir+" (it holds skills/)") {
		t.Fatalf("workspace checks = %+v, want ok naming skills/", ws)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".runx")); err == nil {
		t.Fatal("doctor made a .runx")
	}
	if _, err := os.Lstat(filepath.Join(dir, "home")); err == nil {
		t.Fatal("doctor made the runx home")
	}
}

// The agent check reads the configuration as --drive resolves it and never
// shows the key: nothing configured is fine, a configuration --drive would
// refuse warns with its code, one runx cannot read fails, and a resolved
// one says where its key comes from.
func TestDoctorAgent(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, "secrets"), 0o700); err != nil {
		t.Fatal(err)
	}
	agentCheck := func(env map[string]string) Check {
		t.Helper()
		got := find(Checks(run.Options{Workspace: dir, LookupEnv: func(k string) (string, bool) {
			if k == "RUNX_HOME" {
				return home, true
			}
			v, ok := env[k]
			return v, ok
		}}), "agent")
		if len(got) != 1 {
			t.Fatalf("agent checks = %+v, want one", got)
		}
		return got[0]
	}
	config := func(doc string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if c := agentCheck(nil); c.Status != StatusOK || !strings.Contains(c.Detail, "no managed agent configured") {
		t.Fatalf("no config: %+v", c)
	}
	config(`{"agent":{"provider":"openai"}}`)
	if c := agentCheck(nil); c.Status != StatusWarn || !strings.Contains(c.Detail, "[agent_model_missing]") {
		t.Fatalf("provider without a model: %+v", c)
	}
	config(`{"agent":{"provider":"openai","model":"m-1"}}`)
	if c := agentCheck(nil); c.Status != StatusWarn || !strings.Contains(c.Detail, "[agent_key_missing]") {
		t.Fatalf("built-in provider without a key: %+v", c)
	}
	c := agentCheck(map[string]string{"OPENAI_API_KEY": "sk-very-secret"})
	if c.Status != StatusOK || !strings.Contains(c.Detail, "model m-1") || !strings.Contains(c.Detail, "from the environment") {
		t.Fatalf("resolved from the environment: %+v", c)
	}
	if strings.Contains(c.Detail+c.Fix, "sk-very-secret") {
		t.Fatalf("the agent check shows the key: %+v", c)
	}
	config(`{"agent":{"provider":"openai","model":"m-1","surprise":true}}`)
	if c := agentCheck(nil); c.Status != StatusFail || !strings.Contains(c.Detail, "[config_invalid]") {
		t.Fatalf("a config runx cannot read: %+v", c)
	}
}
