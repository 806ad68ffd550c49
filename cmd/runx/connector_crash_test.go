package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crashAfterSend starts a publish, waits until the forge has committed its
// post (the request left and the act is done), SIGKILLs runx before the
// answer is read, then lets the forge answer a connection nobody reads. It
// returns the killed run's id.
func crashAfterSend(t *testing.T, f *forge, w *workspace, args ...string) string {
	t.Helper()
	committed, release := make(chan struct{}), make(chan struct{})
	f.mu.Lock()
	f.hold, f.release = committed, release
	f.mu.Unlock()
	c := w.cmd("", nil, args...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	select {
	case <-committed:
	case err := <-exited:
		t.Fatalf("runx exited before its write reached the provider: %v", err)
	}
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	close(release)
	return latestRun(t, w)
}

// withReadbacks rewrites the forge connector's post.create readbacks.
func withReadbacks(t *testing.T, w *workspace, f *forge, readbacks string) {
	t.Helper()
	manifest := forgeConnector(f.srv.URL, "none", "0")
	old := `    readbacks:
      - operation: post.find
        inputs: { board: $input.board, key: $key }
        confirms: { title: $input.title, key: $key }
`
	if !strings.Contains(manifest, old) {
		t.Fatal("the forge connector's readbacks moved")
	}
	manifest = strings.Replace(manifest, old, readbacks, 1)
	if err := os.WriteFile(filepath.Join(w.dir, "forge/connectors/forge/connector.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A readback that can find the act only by the write's answer ($response.id)
// cannot run once a crash lost that answer. The next driver sends nothing
// on its own: it pends at <step>/retry, whose request says the readback is
// unknown and exactly why (the readback needs the answer, and none finds
// the act by key). A person's {"retry": true} sends it again under the same
// provider key, which the provider deduplicates: one post.
func TestConnectorCrashWithAnswerOnlyReadbackPendsAtRetry(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	withReadbacks(t, w, f, `    readbacks:
      - operation: post.get
        inputs: { board: $input.board, id: $response.id }
        confirms: { title: $input.title }
`)
	runID := crashAfterSend(t, f, w, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	paused, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	payload := get(paused, "requests", "0", "payload")
	if str(paused, "status") != "needs_approval" || str(paused, "requests", "0", "address") != "publish/retry" {
		t.Fatalf("an attempt nothing settles must wait on its retry: %v", paused)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("the provider saw %d writes; nothing may be sent again before a person decides", n)
	}
	reason := str(payload, "readback_reason")
	if str(payload, "readback") != "unknown" || !strings.Contains(reason, "post.get") || !strings.Contains(reason, "$response") || !strings.Contains(reason, "$key") {
		t.Fatalf("the retry request must say the readback needs the lost answer: %v", payload)
	}
	if str(payload, "custody") != "attempting" || get(payload, "resend_safe") != true || !strings.Contains(str(payload, "why"), "no answer was recorded") {
		t.Fatalf("the retry request must say what custody holds: %v", payload)
	}
	done, code := w.run(answerDoc("approvals", "publish/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`), nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" || str(done, "result", "id") != "p1" {
		t.Fatalf("retried: %d %v", code, done)
	}
	n, keys := f.writeCount()
	if n != 2 || keys[0] != keys[1] || len(f.posts) != 1 {
		t.Fatalf("want the write sent again under the same key and deduplicated, got %d under %q, %d posts", n, keys, len(f.posts))
	}
	if cx := get(stepReceipt(t, w, done), "body", "extra", "connector"); str(cx, "finality") != "confirmed" {
		t.Fatalf("the resent write is confirmed by its readback: %v", cx)
	}
}

// With a readback that finds the act by its provider key beside one that
// needs the answer, a crash that lost the answer reconciles by the key
// alone, with nobody asked and nothing sent again; the receipt names the
// readback it could not run.
func TestConnectorCrashReconcilesByKeyWhenAnswerIsLost(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	withReadbacks(t, w, f, `    readbacks:
      - operation: post.get
        inputs: { board: $input.board, id: $response.id }
        confirms: { title: $input.title }
      - operation: post.find
        inputs: { board: $input.board, key: $key }
        confirms: { title: $input.title, key: $key }
`)
	// Uncrashed, both readbacks run and confirm.
	ok, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=first", "-i", "key=k0", "--json")
	if code != 0 || str(ok, "outcome") != "completed" {
		t.Fatalf("publish: %d %v", code, ok)
	}
	runID := crashAfterSend(t, f, w, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	out, code := w.run("{}", nil, "resume", runID, "-", "--json")
	if code != 0 || str(out, "outcome") != "completed" || str(out, "result", "id") != "p2" || str(out, "result", "title") != "hello" {
		t.Fatalf("resume: %d %v", code, out)
	}
	if n, _ := f.writeCount(); n != 2 {
		t.Fatalf("the provider saw %d writes; reconciliation must not send again", n)
	}
	cx := get(stepReceipt(t, w, out), "body", "extra", "connector")
	if str(cx, "finality") != "confirmed" || get(cx, "reconciled") != true || str(cx, "readback", "skipped", "0") != "post.get" {
		t.Fatalf("receipt: %v", cx)
	}
}

// The idempotency window governs more than the retry request's
// resend_safe. A {"retry": true} given on a request that said resending
// was safe, carried out after the window closed, is not a safe resend any
// more: the person is asked again (resend_safe false, saying why), nothing
// sent. And past the window a readback that looks the act up by its key
// and finds nothing is no evidence the act is absent: it reads unknown.
func TestConnectorRetryPastTheWindowIsAskedAgain(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	day1, day3 := []string{"RUNX_TEST_NOW=2026-01-01T00:00:00Z"}, []string{"RUNX_TEST_NOW=2026-01-03T00:00:00Z"}
	f.hangup = true
	paused, _ := w.run("", day1, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	payload := get(paused, "requests", "0", "payload")
	if get(payload, "resend_safe") != true || str(payload, "resend_safe_until") != "2026-01-02T00:00:00Z" || str(payload, "readback") != "absent" {
		t.Fatalf("within the window: %v", payload)
	}
	yes := func(p map[string]any) string {
		return answerDoc("approvals", "publish/retry", str(p, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	}
	again, _ := w.run(yes(paused), day3, "resume", str(paused, "run_id"), "-", "--json")
	payload = get(again, "requests", "0", "payload")
	if str(again, "status") != "needs_approval" || str(again, "requests", "0", "address") != "publish/retry" || get(payload, "resend_safe") != false {
		t.Fatalf("a yes to a safe resend, past the window, is asked again: %v", again)
	}
	if !strings.Contains(str(payload, "why"), "window") || str(payload, "readback") != "unknown" || !strings.Contains(str(payload, "readback_reason"), "proves nothing") {
		t.Fatalf("the new request says why: %v", payload)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("the provider saw %d writes; nothing is sent before the person decides again", n)
	}
	done, code := w.run(yes(again), day3, "resume", str(paused, "run_id"), "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("decided again, knowingly: %d %v", code, done)
	}
	if n, keys := f.writeCount(); n != 2 || keys[0] != keys[1] {
		t.Fatalf("want one resend under the same key, got %d under %q", n, keys)
	}
}
