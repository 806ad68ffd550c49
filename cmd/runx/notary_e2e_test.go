package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// servingNotary is `runx notary serve` in its own process group, once it
// printed its readiness line.
type servingNotary struct {
	url       string
	publicKey string
}

// startNotary starts the server on a free loopback port and waits on its
// readiness line, never on a sleep.
func startNotary(t *testing.T, w *workspace, data string) *servingNotary {
	t.Helper()
	c := w.cmd("", nil, "notary", "serve", "--addr", "127.0.0.1:0", "--data", data, "--json")
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
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); _ = c.Wait() })
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		for {
			if _, err := r.ReadString('\n'); err != nil {
				break
			}
		}
	}()
	select {
	case line := <-lines:
		var ready struct {
			Status, URL string
			PublicKey   string `json:"public_key"`
		}
		if err := json.Unmarshal([]byte(line), &ready); err != nil || ready.Status != "listening" || !strings.HasPrefix(ready.URL, "http://127.0.0.1:") {
			t.Fatalf("no readiness line: %q\n%s", line, stderr.String())
		}
		return &servingNotary{url: ready.URL, publicKey: ready.PublicKey}
	case <-time.After(30 * time.Second):
		t.Fatalf("the notary printed no readiness line\n%s", stderr.String())
	}
	return nil
}

// receiptFile runs hello-world and returns its root receipt's file.
func receiptFile(t *testing.T, w *workspace, message string) string {
	t.Helper()
	repo, _ := filepath.Abs("../..")
	doc, code := w.run("", nil, "skill", filepath.Join(repo, "examples", "hello-world"), "-i", "message="+message, "--json")
	rid := str(doc, "receipt_id")
	if code != 0 || !strings.HasPrefix(rid, "sha256:") {
		t.Fatalf("hello-world: %d %v", code, doc)
	}
	return filepath.Join(w.dir, ".runx", "receipts", "sha256-"+strings.TrimPrefix(rid, "sha256:")+".json")
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func writeJSON(t *testing.T, path string, doc any) {
	t.Helper()
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Against a real `runx notary serve` on loopback: notarize, then verify
// offline and against the home's view of the log; a tampered counter-seal,
// a proof for another leaf, a checkpoint of a forked log, an unsigned
// receipt and a plaintext URL to another machine are each refused with
// their code, and the token is never printed.
func TestNotaryAcceptance(t *testing.T) {
	w := newWorkspace(t, nil)
	data := filepath.Join(w.dir, "notary-data")
	out, err := w.cmd("", nil, "notary", "token", "create", "--data", data, "--name", "ci").Output()
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(out))
	n := startNotary(t, w, data)
	keyFile := filepath.Join(w.dir, "notary.pem")
	if err := os.WriteFile(keyFile, []byte(n.publicKey), 0o644); err != nil {
		t.Fatal(err)
	}
	api := []string{"--api-base-url", n.url, "--allow-local-api"}
	withToken := []string{"RUNX_PUBLIC_API_TOKEN=" + token}
	notarize := func(receiptPath, out string) map[string]any {
		t.Helper()
		var stdout bytes.Buffer
		c := w.cmd("", withToken, append([]string{"notarize", receiptPath, "--out", out, "--json"}, api...)...)
		c.Stdout = &stdout
		if err := c.Run(); err != nil {
			t.Fatalf("notarize: %v\n%s", err, stdout.String())
		}
		if strings.Contains(stdout.String(), token) {
			t.Fatal("notarize printed the token")
		}
		var doc map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	verify := func(doc string, extra ...string) (map[string]any, int) {
		t.Helper()
		return w.run("", nil, append([]string{"verify", "--notary", doc, "--notary-key", keyFile, "--json"}, extra...)...)
	}
	wantCode := func(what string, doc map[string]any, code int, want string) {
		t.Helper()
		if code == 0 || str(doc, "error", "code") != want {
			t.Fatalf("%s: exit %d %v, want %s", what, code, doc, want)
		}
	}

	first, second := receiptFile(t, w, "one"), receiptFile(t, w, "two")
	rec1, rec2 := filepath.Join(w.dir, "rec1.json"), filepath.Join(w.dir, "rec2.json")
	doc := notarize(first, rec1)
	hash := str(doc, "content_hash")
	if get(doc, "log_index") != 0.0 || str(doc, "link") != n.url+"/r/"+hash {
		t.Fatalf("notarize: %v", doc)
	}
	notarize(second, rec2)
	if doc, code := verify(rec1); code != 0 || str(doc, "status") != "verified" || str(doc, "consistency") != "first_seen" || str(doc, "content_hash") != hash {
		t.Fatalf("verify the first: %d %v", code, doc)
	}
	// Offline: the same checkpoint needs no notary (the URL is unreachable).
	if doc, code := verify(rec1, "--api-base-url", "https://notary.invalid"); code != 0 || str(doc, "consistency") != "same_tree" {
		t.Fatalf("offline: %d %v", code, doc)
	}
	if doc, code := verify(rec2, api...); code != 0 || str(doc, "consistency") != "extends" {
		t.Fatalf("the second, with a consistency proof: %d %v", code, doc)
	}

	// A tampered counter-seal: the first record's seal on the second.
	r1, r2 := readJSON(t, rec1), readJSON(t, rec2)
	r2["counterseal"].(map[string]any)["value"] = r1["counterseal"].(map[string]any)["value"]
	tampered := filepath.Join(w.dir, "tampered.json")
	writeJSON(t, tampered, r2)
	doc, code := verify(tampered)
	wantCode("tampered counter-seal", doc, code, "notary_counterseal_invalid")

	// A proof for another leaf: both records from /r, in the tree of 2.
	fetch := func(hash string) map[string]any {
		resp, err := http.Get(n.url + "/r/" + hash)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	a, b := fetch(hash), fetch(str(r2, "statement", "content_hash"))
	a["inclusion_proof"] = b["inclusion_proof"]
	other := filepath.Join(w.dir, "otherleaf.json")
	writeJSON(t, other, a)
	doc, code = verify(other)
	wantCode("proof for another leaf", doc, code, "notary_proof_invalid")

	// A forked log: the notary's key over another history of two entries.
	forkData := filepath.Join(w.dir, "fork-data")
	if err := os.MkdirAll(forkData, 0o700); err != nil {
		t.Fatal(err)
	}
	rawKey, err := os.ReadFile(filepath.Join(data, "notary.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(forkData, "notary.key"), rawKey, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = w.cmd("", nil, "notary", "token", "create", "--data", forkData, "--name", "ci").Output()
	if err != nil {
		t.Fatal(err)
	}
	fork := startNotary(t, w, forkData)
	if fork.publicKey != n.publicKey {
		t.Fatal("the fork signs with another key")
	}
	forkEnv := []string{"RUNX_PUBLIC_API_TOKEN=" + strings.TrimSpace(string(out))}
	forked := filepath.Join(w.dir, "forked.json")
	for _, p := range []string{first, receiptFile(t, w, "three")} {
		c := w.cmd("", forkEnv, "notarize", p, "--out", forked, "--api-base-url", fork.url, "--allow-local-api")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("notarize on the fork: %v\n%s", err, out)
		}
	}
	doc, code = verify(forked, "--api-base-url", fork.url, "--allow-local-api")
	wantCode("checkpoint of a forked log", doc, code, "notary_log_forked")
	// ... and the home still holds the first log's view.
	if doc, code := verify(rec2, api...); code != 0 || str(doc, "consistency") != "same_tree" {
		t.Fatalf("after the fork: %d %v", code, doc)
	}

	// An unsigned receipt: refused before it leaves, and by the server.
	unsigned := readJSON(t, first)
	delete(unsigned, "signature")
	unsignedPath := filepath.Join(w.dir, "unsigned.json")
	writeJSON(t, unsignedPath, unsigned)
	doc, code = w.run("", withToken, append([]string{"notarize", unsignedPath, "--json"}, api...)...)
	wantCode("unsigned receipt", doc, code, "signature_invalid")
	raw, _ := json.Marshal(unsigned)
	req, _ := http.NewRequest(http.MethodPost, n.url+"/v1/receipts/notarize", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var refusal map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&refusal)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || str(refusal, "error", "code") != "signature_invalid" {
		t.Fatalf("the server took an unsigned receipt: %d %v", resp.StatusCode, refusal)
	}

	// A plaintext URL to another machine, and loopback without opting in.
	doc, code = w.run("", withToken, "notarize", first, "--api-base-url", "http://notary.example", "--json")
	wantCode("plaintext URL", doc, code, "notary_insecure_url")
	doc, code = w.run("", withToken, "notarize", first, "--api-base-url", n.url, "--json")
	wantCode("loopback without --allow-local-api", doc, code, "notary_local_api_refused")
	// No token; a token the notary did not issue, never echoed.
	doc, code = w.run("", nil, append([]string{"notarize", first, "--json"}, api...)...)
	wantCode("no token", doc, code, "notary_token_missing")
	bad := "runxnot_" + strings.Repeat("ab", 40)
	var stdout bytes.Buffer
	c := w.cmd("", []string{"RUNX_PUBLIC_API_TOKEN=" + bad}, append([]string{"notarize", first, "--json"}, api...)...)
	c.Stdout, c.Stderr = &stdout, &stdout
	_ = c.Run()
	if !strings.Contains(stdout.String(), "notary_token_invalid") || strings.Contains(stdout.String(), bad) {
		t.Fatalf("unknown token: %s", stdout.String())
	}
}
