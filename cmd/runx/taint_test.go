package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const leakSkill = `minimum_runx: 0.1.0
methods:
  ok:
    description: One call that echoes its credential.
    steps:
      - id: leak
        operation: leaky/echo
        inputs: { mode: ok, data_source_ref: tenant://acme/leak }
  fail:
    description: One call that fails quoting its credential.
    steps:
      - id: leak
        operation: leaky/echo
        inputs: { mode: fail, data_source_ref: tenant://acme/leak }
  pause:
    description: Echo, wait for a person, echo again.
    steps:
      - id: first
        operation: leaky/echo
        inputs: { mode: ok, data_source_ref: tenant://acme/leak }
      - id: gate
        ask: { reason: Carry on? }
      - id: second
        operation: leaky/echo
        inputs: { mode: ok, data_source_ref: tenant://acme/leak }
  conn-ok:
    description: A connector read whose provider echoes the credential.
    steps:
      - id: read
        operation: echoer/token.get
        inputs: { id: ok }
  conn-fail:
    description: A connector read the provider refuses, quoting the credential.
    steps:
      - id: read
        operation: echoer/token.get
        inputs: { id: refuse }
  crash:
    description: A call the driver is killed in.
    inputs:
      ready_file: { type: string, required: true }
    steps:
      - id: leak
        operation: leaky/echo
        inputs: { mode: crash, data_source_ref: tenant://acme/leak, ready_file: $input.ready_file }
`

// taintSecret is a fresh credential holding characters every encoding
// changes ('+', '/'), so each form the test searches for is distinct.
func taintSecret(t *testing.T) string {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "sk+" + hex.EncodeToString(b[:9]) + "/" + base64.RawURLEncoding.EncodeToString(b[9:])
}

// secretForms are the encodings no byte runx writes may hold.
func secretForms(secret string) map[string]string {
	return map[string]string{
		"raw":        secret,
		"base64":     base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64url":  base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"query":      url.QueryEscape(secret),
		"path":       url.PathEscape(secret),
		"hex":        hex.EncodeToString([]byte(secret)),
		"basic-auth": base64.StdEncoding.EncodeToString([]byte("user:" + secret))[8:],
	}
}

// The taint test: a unique secret is delivered to a plugin that echoes it
// in its output, evidence, failure message, plain stderr and hclog records,
// in several encodings. Runs succeed, fail, pause and resume, and are killed
// mid-call and resumed, all with RUNX_LOG=debug. Then every byte runx wrote
// (the project's .runx, the runx home but for the secret and bindings
// files themselves, every command's stdout and stderr) is searched: no
// encoding of the secret appears anywhere, while the plugin provably got it.
func TestTaintNoDeliveredSecretLeaves(t *testing.T) {
	secret := taintSecret(t)
	w := newWorkspace(t, skillFiles("leak", leakSkill))
	w.env = append(w.env, "RUNX_LOG=debug")
	var transcript bytes.Buffer
	runx := func(stdin string, args ...string) (map[string]any, int) {
		t.Helper()
		var out, errb bytes.Buffer
		c := w.cmd(stdin, nil, args...)
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		transcript.Write(out.Bytes())
		transcript.Write(errb.Bytes())
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if out.Len() > 0 {
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("runx %v printed no single JSON document: %v\n%s", args, err, out.String())
			}
		}
		return doc, code
	}
	installLeaky(t, w)
	provider := echoProvider(t, secret)
	os.MkdirAll(filepath.Join(w.dir, "leak", "connectors", "echoer"), 0o755)
	os.WriteFile(filepath.Join(w.dir, "leak", "connectors", "echoer", "connector.yaml"), []byte(strings.ReplaceAll(echoerConnector, "BASE", provider)), 0o644)
	os.WriteFile(filepath.Join(w.dir, ".runx", "data-sources.json"), []byte(`{"data_sources":{"tenant://acme/leak":{"adapter":"data.leaky","profile":"leak"}}}`), 0o644)
	if doc, code := runx(secret+"\n", "secret", "set", "data-leak", "--json"); code != 0 {
		t.Fatalf("secret set: %d %v", code, doc)
	}

	var receipts []string
	sealed := func(doc map[string]any, code int, outcome string) {
		t.Helper()
		if str(doc, "outcome") != outcome {
			t.Fatalf("want outcome %s, got %d %v", outcome, code, doc)
		}
		receipts = append(receipts, str(doc, "receipt_id"))
	}
	// Success: the plugin echoed the token; runx shows the marker, and the
	// token's digest (which the plugin could only compute from the value)
	// proves it was delivered.
	ok, code := runx("", "skill", "./leak", "ok", "--json")
	sealed(ok, code, "completed")
	raw, _ := json.Marshal(ok)
	if !strings.Contains(string(raw), "[redacted]") {
		t.Fatalf("the echoed token should show as the marker: %s", raw)
	}
	sum := sha256.Sum256([]byte(secret))
	if !strings.Contains(string(raw), hex.EncodeToString(sum[:])) {
		t.Fatalf("the plugin never got the secret; the search would prove nothing: %s", raw)
	}
	// Failure: the plugin's message quotes the token.
	failed, code := runx("", "skill", "./leak", "fail", "--json")
	sealed(failed, code, "failed")
	if msg := str(failed, "error", "message"); !strings.Contains(msg, "[redacted]") {
		t.Fatalf("the failure message should carry the marker: %v", failed)
	}
	// Pause and resume.
	paused, code := runx("", "skill", "./leak", "pause", "--json")
	if str(paused, "status") != "needs_approval" {
		t.Fatalf("want needs_approval, got %d %v", code, paused)
	}
	runID := str(paused, "run_id")
	digest := str(paused, "answers_template", "approvals", "gate", "request_digest")
	approve := `{"approvals":{"gate":{"request_digest":"` + digest + `","approved":true,"reason":"go"}}}`
	resumed, code := runx(approve, "resume", runID, "-", "--json")
	sealed(resumed, code, "completed")
	// Crash: the driver is killed while the plugin holds the call, then a
	// new driver resumes the run.
	ready := filepath.Join(t.TempDir(), "ready")
	var out, errb bytes.Buffer
	c := w.cmd("", nil, "skill", "./leak", "crash", "-i", "ready_file="+ready, "--json")
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, ready)
	c.Process.Kill()
	c.Wait()
	transcript.Write(out.Bytes())
	transcript.Write(errb.Bytes())
	list, _ := runx("", "history", "--json")
	crashedID := ""
	for _, r := range asList(get(list, "open")) {
		if str(r, "method") == "crash" {
			crashedID = str(r, "run_id")
		}
	}
	if crashedID == "" {
		t.Fatalf("history lists no crashed run: %v", list)
	}
	after, code := runx("{}", "resume", crashedID, "-", "--json")
	sealed(after, code, "completed")
	// A connector credential, bound by piping it to runx connector use,
	// goes through plugins/http to a loopback provider that echoes it in
	// its answer (and in its refusal).
	if doc, code := runx(secret+"\n", "connector", "use", "echoer", "--package", "leak", "--json"); code != 0 || str(doc, "credential", "secret") != "connector-echoer" {
		t.Fatalf("connector use: %d %v", code, doc)
	}
	connOK, code := runx("", "skill", "./leak", "conn-ok", "--json")
	sealed(connOK, code, "completed")
	if got := str(connOK, "result", "authorization"); got != "Bearer [redacted]" {
		t.Fatalf("the provider's echo of the connector credential should show the marker, got %q: %v", got, connOK)
	}
	connFail, code := runx("", "skill", "./leak", "conn-fail", "--json")
	if str(connFail, "status") != "sealed" || str(connFail, "outcome") == "completed" {
		t.Fatalf("the refused connector call must not complete: %d %v", code, connFail)
	}
	receipts = append(receipts, str(connFail, "receipt_id"))
	for _, id := range []string{runID, crashedID, str(ok, "run_id"), str(failed, "run_id"), str(connOK, "run_id"), str(connFail, "run_id")} {
		if doc, code := runx("", "history", id, "--json"); code != 0 {
			t.Fatalf("history %s: %d %v", id, code, doc)
		}
	}
	for _, id := range receipts {
		if doc, code := runx("", "verify", id, "--json"); code != 0 || str(doc, "status") != "verified" {
			t.Fatalf("receipt %s must verify after scrubbing: %d %v", id, code, doc)
		}
	}

	home := filepath.Join(w.dir, ".home")
	hits := searchTree(t, filepath.Join(w.dir, ".runx"), secret, nil)
	hits = append(hits, searchTree(t, home, secret, map[string]bool{
		filepath.Join(home, "secrets", "data-leak"):        true,
		filepath.Join(home, "secrets", "connector-echoer"): true,
	})...)
	for name, form := range secretForms(secret) {
		if bytes.Contains(transcript.Bytes(), []byte(form)) {
			hits = append(hits, "stdout/stderr holds the "+name+" form")
		}
	}
	if len(hits) > 0 {
		t.Fatalf("the delivered secret leaked:\n%s", strings.Join(hits, "\n"))
	}
	// The search is not vacuous: the plugin's hclog records reached runx's
	// log (RUNX_LOG=debug), scrubbed. (Its plain stderr writes go-plugin
	// carries over the stdio stream, which runx discards.)
	if !bytes.Contains(transcript.Bytes(), []byte(`token="[redacted]"`)) {
		t.Fatalf("the plugin's stderr never reached runx's log; the search proves nothing:\n%s", grepLines(transcript.String(), "leaky"))
	}
	if stored, _ := os.ReadFile(filepath.Join(home, "secrets", "data-leak")); !bytes.Contains(stored, []byte(secret)) {
		t.Fatal("the secret was not stored where the search skipped it")
	}
}

const echoerConnector = `id: echoer
version: 1.0.0
base_url: BASE
credential:
  variable: ECHOER_TOKEN
  header: Authorization
  scheme: Bearer
operations:
  token.get:
    verb: read
    request: { method: GET, path: "/tokens/{id}" }
    inputs:
      id: { type: string, required: true }
    outputs:
      authorization: { type: string }
      base64: { type: string }
      query: { type: string }
`

// echoProvider is a loopback provider that requires the bearer token and
// then echoes it: in its answer (raw, base64, URL-escaped) for /tokens/ok,
// and in a 401 refusal's body for anything else.
func echoProvider(t *testing.T, secret string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		if auth != "Bearer "+secret || r.URL.Path != "/tokens/ok" {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]string{"error": "token " + secret + " refused", "b64": base64.StdEncoding.EncodeToString([]byte(secret))})
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"authorization": auth, "base64": base64.StdEncoding.EncodeToString([]byte(secret)), "query": "?t=" + url.QueryEscape(secret)})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func asList(v any) []any { l, _ := v.([]any); return l }

// searchTree lists every file under root (but skip) holding any form of
// secret.
func searchTree(t *testing.T, root, secret string, skip map[string]bool) []string {
	t.Helper()
	var hits []string
	forms := secretForms(secret)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || skip[path] {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for name, form := range forms {
			if bytes.Contains(raw, []byte(form)) {
				hits = append(hits, path+" holds the "+name+" form")
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("%s holds no file: the search proves nothing", root)
	}
	return hits
}

// installLeaky pins the hostile plugin in the workspace.
func installLeaky(t *testing.T, w *workspace) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(binDir, "runx-plugin-leaky"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w.dir, ".runx", "plugins"), 0o755)
	if err := os.WriteFile(filepath.Join(w.dir, ".runx", "plugins", "runx-plugin-leaky"), raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if doc, code := w.run("", nil, "plugin", "pin", "leaky", "--json"); code != 0 {
		t.Fatalf("pin: %d %v", code, doc)
	}
}

func grepLines(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
