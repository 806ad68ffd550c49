package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/registrycmd"
)

// servingRegistry is `runx registry serve` in its own process group, once
// it printed its readiness line.
type servingRegistry struct {
	c      *exec.Cmd
	url    string
	key    string
	exited chan error
}

// startRegistry starts the server and waits on its readiness line, never on
// a sleep.
func startRegistry(t *testing.T, w *workspace, data string) *servingRegistry {
	t.Helper()
	c := w.cmd("", nil, "registry", "serve", "--addr", "127.0.0.1:0", "--data", data)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL) })
	s := &servingRegistry{c: c, exited: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		for { // keep the pipe drained until exit
			if _, err := r.ReadString('\n'); err != nil {
				break
			}
		}
		s.exited <- c.Wait()
	}()
	select {
	case line := <-lines:
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), registrycmd.ReadyPrefix)
		url, key, _ := strings.Cut(rest, " (key ")
		if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("no readiness line: %q\n%s", line, stderr.String())
		}
		s.url, s.key = url, strings.TrimSuffix(key, ")")
	case <-time.After(30 * time.Second):
		t.Fatalf("the server printed no readiness line\n%s", stderr.String())
	}
	return s
}

// stop signals the server and returns its exit code; the port is closed.
func (s *servingRegistry) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	syscall.Kill(s.c.Process.Pid, sig)
	select {
	case err := <-s.exited:
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		}
		if _, err := http.Get(s.url + "/v1/keys"); err == nil {
			t.Fatal("the stopped server still answers")
		}
		return code
	case <-time.After(20 * time.Second):
		t.Fatalf("the server did not stop on %v", sig)
	}
	return -1
}

// The server-side verbs through the binary: the key printed by `runx
// registry key` is the one the server signs with and serves; a token from
// `runx registry token create` publishes; the tier command refuses a tier
// it does not know; serve prints its readiness line, keeps what was
// published across a restart and stops on SIGTERM (0) and SIGINT (130).
func TestRegistryServeCommands(t *testing.T) {
	w := newWorkspace(t, nil)
	data := w.dir + "/registry-data"
	out, err := w.cmd("", nil, "registry", "key", "--data", data).Output()
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(out))
	if !strings.HasPrefix(key, "ed25519:") {
		t.Fatalf("key: %q", out)
	}
	out, err = w.cmd("", nil, "registry", "token", "create", "--data", data, "--namespace", "acme").Output()
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(out))
	doc, code := w.run("", nil, "registry", "namespace", "--data", data, "--namespace", "acme", "--tier", "gold", "--json")
	if code != 1 || get(doc, "error", "code") != "registry_tier_invalid" {
		t.Fatalf("tier gold: %d %v", code, doc)
	}
	doc, code = w.run("", nil, "registry", "token", "create", "--data", data, "--namespace", "Not/A/Namespace", "--json")
	if code != 1 || get(doc, "error", "code") != "registry_namespace_invalid" {
		t.Fatalf("bad namespace: %d %v", code, doc)
	}
	doc, code = w.run("", nil, "registry", "namespace", "--data", data, "--namespace", "acme", "--tier", "verified", "--json")
	if code != 0 || doc["trust_tier"] != "verified" {
		t.Fatalf("tier verified: %d %v", code, doc)
	}

	s := startRegistry(t, w, data)
	if s.key != key {
		t.Fatalf("serving with key %s, runx registry key printed %s", s.key, key)
	}
	req, _ := http.NewRequest("POST", s.url+"/v1/publish", strings.NewReader(`{"kind":"skill","publisher":"acme","files":[`+
		`{"path":"SKILL.md","data":"`+b64("---\nname: hello\ndescription: Say hello.\nversion: 1.0.0\n---\n\nSay hello.\n")+`"}]}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ans map[string]any
	json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	if resp.StatusCode != 201 || ans["ref"] != "acme/hello@1.0.0" || get(ans, "record", "trust_tier") != "verified" {
		t.Fatalf("publish: %d %v", resp.StatusCode, ans)
	}

	// `runx registry token revoke` beside the running server: the token is
	// refused from its next request on, with its own code.
	listed, code := w.run("", nil, "registry", "token", "list", "--data", data, "--namespace", "acme", "--json")
	id := str(listed, "tokens", "0", "id")
	if code != 0 || id == "" || !strings.HasPrefix(token, "runxreg_"+id) {
		t.Fatalf("token list: %d %v", code, listed)
	}
	if doc, code := w.run("", nil, "registry", "token", "revoke", id, "--data", data, "--json"); code != 0 || str(doc, "token", "revoked_at") == "" {
		t.Fatalf("revoke: %d %v", code, doc)
	}
	req, _ = http.NewRequest("GET", s.url+"/v1/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	ans = nil
	json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	if resp.StatusCode != 401 || get(ans, "error", "code") != "registry_token_revoked" {
		t.Fatalf("a revoked token: %d %v", resp.StatusCode, ans)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("SIGTERM: exit %d, want 0", code)
	}

	s = startRegistry(t, w, data)
	resp, err = http.Get(s.url + "/v1/skills/acme/hello/versions/1.0.0/record")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the record did not survive a restart: %v %v", resp, err)
	}
	resp.Body.Close()
	if code := s.stop(t, syscall.SIGINT); code != 130 {
		t.Fatalf("SIGINT: exit %d, want 130", code)
	}
}

func b64(s string) string {
	var b bytes.Buffer
	enc := jsonBase64{&b}
	enc.write([]byte(s))
	return b.String()
}

type jsonBase64 struct{ b *bytes.Buffer }

func (j jsonBase64) write(p []byte) {
	raw, _ := json.Marshal(p) // encoding/json writes []byte as standard base64
	j.b.Write(bytes.Trim(raw, `"`))
}
