package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// receiptOf reads one receipt's body from the workspace's store.
func receiptOf(t *testing.T, w *workspace, id string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(w.dir, ".runx", "receipts", strings.ReplaceAll(id, ":", "-")+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// stepReceipt is the receipt of a sealed run's first step.
func stepReceipt(t *testing.T, w *workspace, run map[string]any) map[string]any {
	t.Helper()
	return receiptOf(t, w, str(run, "trace", "steps", "0", "receipt_id"))
}

// A write goes once under its provider key, is confirmed by its readback
// and seals with the connector's digests; a read goes through the same
// plugin; the credential reaches the provider and nothing runx printed.
func TestConnectorWriteIsConfirmedByReadback(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	out, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if code != 0 || str(out, "outcome") != "completed" {
		t.Fatalf("publish: %d %v", code, out)
	}
	if str(out, "result", "id") != "p1" || str(out, "result", "title") != "hello" {
		t.Fatalf("result: %v", out["result"])
	}
	n, keys := f.writeCount()
	if n != 1 || !strings.HasPrefix(keys[0], "runx-") {
		t.Fatalf("the provider saw %d writes under %q", n, keys)
	}
	rec := stepReceipt(t, w, out)
	cx := get(rec, "body", "extra", "connector")
	if str(cx, "finality") != "confirmed" || str(cx, "provider_key") != keys[0] || str(cx, "target") != "boards/general" {
		t.Fatalf("receipt connector: %v", cx)
	}
	for _, k := range []string{"manifest_digest", "connector_digest", "operation_digest", "body_digest"} {
		if !strings.HasPrefix(str(cx, k), "sha256:") {
			t.Fatalf("receipt connector %s: %v", k, cx)
		}
	}
	read, code := w.run("", nil, "skill", "./forge#read", "-i", "board=general", "-i", "id=p1", "--json")
	if code != 0 || str(read, "result", "title") != "hello" {
		t.Fatalf("read: %d %v", code, read)
	}
	filepath.Walk(filepath.Join(w.dir, ".runx"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if raw, _ := os.ReadFile(p); strings.Contains(string(raw), f.token) {
				t.Errorf("%s holds the credential", p)
			}
		}
		return nil
	})
}

// A second call under the same key sends nothing: it returns what was done,
// already_done naming the receipt that did the act, with no new charge.
// Another body under the key is refused before anything is sent.
func TestConnectorKeyMeansOneIntent(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "1500")
	first, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if code != 0 {
		t.Fatalf("first: %v", first)
	}
	firstStep := str(first, "trace", "steps", "0", "receipt_id")
	again, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if code != 0 || str(again, "outcome") != "completed" || str(again, "result", "id") != "p1" {
		t.Fatalf("again: %d %v", code, again)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("the provider saw %d writes; a done key sends nothing", n)
	}
	cx := get(stepReceipt(t, w, again), "body", "extra", "connector")
	if str(cx, "finality") != "already_done" || str(cx, "already_done", "receipt_id") != firstStep || get(cx, "settled_usd_micro") != float64(0) {
		t.Fatalf("already_done: %v (first step receipt %s)", cx, firstStep)
	}
	conflict, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=changed", "-i", "key=k1", "--json")
	if code == 0 || str(conflict, "trace", "steps", "0", "error", "code") != "idempotency_key_conflict" {
		t.Fatalf("conflict: %d %v", code, conflict)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("a conflicting body reached the provider (%d writes)", n)
	}
	// The same key on another board is another act: another provider key.
	other, code := w.run("", nil, "skill", "./forge#publish", "-i", "board=news", "-i", "title=hello", "-i", "key=k1", "--json")
	if code != 0 || str(other, "result", "id") != "p2" {
		t.Fatalf("other target: %d %v", code, other)
	}
}

// An operation its connector marks approval: required pauses before
// anything is sent, on one request at the step gated operation:<intent
// digest>, whose operator summary the runtime built. A changed price is a
// changed intent: the decision made for the old one does not carry over.
func TestConnectorRequiredApproval(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "required", "1500")
	paused, _ := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if str(paused, "status") != "needs_approval" || str(paused, "requests", "0", "address") != "publish" {
		t.Fatalf("paused: %v", paused)
	}
	payload := get(paused, "requests", "0", "payload")
	sum := get(payload, "operator_summary")
	if !strings.HasPrefix(str(payload, "gate"), "operation:sha256:") || str(payload, "gate") != "operation:"+str(sum, "intent_digest") {
		t.Fatalf("gate: %v", payload)
	}
	if str(sum, "target") != "boards/general" || get(sum, "quoted_usd_micro") != float64(1500) || !strings.HasPrefix(str(sum, "payload_digest"), "sha256:") || str(sum, "scopes", "0") != "forge:posts:write" {
		t.Fatalf("summary: %v", sum)
	}
	if n, _ := f.writeCount(); n != 0 {
		t.Fatal("an unapproved write reached the provider")
	}
	runID, digest := str(paused, "run_id"), str(paused, "requests", "0", "request_digest")
	// The price changes while the run waits: the package drifted, so the
	// old decision reaches nothing.
	os.WriteFile(filepath.Join(w.dir, "forge/connectors/forge/connector.yaml"), []byte(forgeConnector(f.srv.URL, "required", "2500")), 0o644)
	drift, code := w.run(answerDoc("approvals", "publish", digest, `"approved":true,"reason":"yes"`), nil, "resume", runID, "-", "--json")
	if code == 0 || str(drift, "error", "code") != "resume_package_drift" {
		t.Fatalf("a decision for the old price must not send at the new one: %v", drift)
	}
	if n, _ := f.writeCount(); n != 0 {
		t.Fatal("a write went at a price nobody approved")
	}
	os.WriteFile(filepath.Join(w.dir, "forge/connectors/forge/connector.yaml"), []byte(forgeConnector(f.srv.URL, "required", "1500")), 0o644)
	done, code := w.run(answerDoc("approvals", "publish", digest, `"approved":true,"reason":"yes"`), nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("approved: %d %v", code, done)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("%d writes", n)
	}
	if !strings.HasPrefix(str(stepReceipt(t, w, done), "body", "extra", "approval", "gate"), "operation:sha256:") {
		t.Fatal("the receipt does not bind the approval's gate")
	}
}

// A write whose request left with no answer read, and that its readback
// cannot find, stays pending at <step>/retry, asked of a person; a
// decision to retry sends it again under the same provider key.
func TestConnectorAmbiguousWritePendsAtRetry(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	f.hangup = true
	paused, _ := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if str(paused, "status") != "needs_approval" || str(paused, "requests", "0", "address") != "publish/retry" || get(paused, "requests", "0", "payload", "resend_safe") != true {
		t.Fatalf("paused: %v", paused)
	}
	// The readback got the provider's 404 (provider_not_found): the act
	// is absent, and the retry request says so.
	if str(paused, "requests", "0", "payload", "readback") != "absent" {
		t.Fatalf("the retry request names the readback's verdict: %v", get(paused, "requests", "0", "payload"))
	}
	done, code := w.run(answerDoc("approvals", "publish/retry", str(paused, "requests", "0", "request_digest"), `"value":{"retry":true}`), nil, "resume", str(paused, "run_id"), "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("retried: %d %v", code, done)
	}
	n, keys := f.writeCount()
	if n != 2 || keys[0] != keys[1] {
		t.Fatalf("want the write sent again under the same key, got %d under %q", n, keys)
	}
}

// A person's decision not to retry leaves the write failed retry_declined.
func TestConnectorRetryDeclined(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	f.hangup = true
	paused, _ := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if get(paused, "answers_template", "approvals", "publish/retry", "value", "retry") != false {
		t.Fatalf("the answers template must offer a retry decision: %v", paused["answers_template"])
	}
	digest := str(paused, "requests", "0", "request_digest")
	// An approval's shape is no retry decision: refused, nothing changed.
	bad, code := w.run(answerDoc("approvals", "publish/retry", digest, `"approved":true,"reason":"yes"`), nil, "resume", str(paused, "run_id"), "-", "--json")
	if code == 0 || str(bad, "error", "code") != "resume_entry_invalid" {
		t.Fatalf("a misshapen retry decision: %d %v", code, bad)
	}
	out, _ := w.run(answerDoc("approvals", "publish/retry", digest, `"value":{"retry":false}`), nil, "resume", str(paused, "run_id"), "-", "--json")
	if str(out, "trace", "steps", "0", "error", "code") != "retry_declined" {
		t.Fatalf("declined: %v", out)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("%d writes", n)
	}
}

// The driver is killed (SIGKILL) after the write's request left and before
// its answer was recorded: the provider committed the post and holds the
// answer until the kill is observed. The next driver reconciles the attempt
// from custody by its readback and sends nothing: the provider saw exactly
// one write, and the run seals completed with the act confirmed.
func TestConnectorCrashAfterSendReconcilesByReadback(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "none", "0")
	runID := crashAfterSend(t, f, w, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	out, code := w.run("{}", nil, "resume", runID, "-", "--json")
	if code != 0 || str(out, "outcome") != "completed" || str(out, "result", "id") != "p1" {
		t.Fatalf("resume: %d %v", code, out)
	}
	if n, _ := f.writeCount(); n != 1 {
		t.Fatalf("the provider saw %d writes; reconciliation must not send again", n)
	}
	cx := get(stepReceipt(t, w, out), "body", "extra", "connector")
	if str(cx, "finality") != "confirmed" || get(cx, "reconciled") != true {
		t.Fatalf("receipt: %v", cx)
	}
}

// A connector added to the project (.runx/added-connectors/<name>/<version>/)
// serves a package that carries none, and binds the run's closure: a pending
// run whose added manifest changed (here, its price) refuses to go on.
func TestAddedConnectorBindsTheClosure(t *testing.T) {
	f := newForge(t)
	files := skillFiles("forge", forgeSkill)
	manifest := ".runx/added-connectors/forge/1.0.0/connector.yaml"
	files[manifest] = forgeConnector(f.srv.URL, "required", "1500")
	w := newWorkspace(t, files)
	w.env = append(w.env, "FORGE_TOKEN="+f.token)
	paused, _ := w.run("", nil, "skill", "./forge#publish", "-i", "board=general", "-i", "title=hello", "-i", "key=k1", "--json")
	if str(paused, "status") != "needs_approval" {
		t.Fatalf("paused: %v", paused)
	}
	os.WriteFile(filepath.Join(w.dir, manifest), []byte(forgeConnector(f.srv.URL, "required", "2500")), 0o644)
	approve := answerDoc("approvals", "publish", str(paused, "requests", "0", "request_digest"), `"approved":true,"reason":"yes"`)
	drift, code := w.run(approve, nil, "resume", str(paused, "run_id"), "-", "--json")
	if code == 0 || str(drift, "error", "code") != "resume_closure_drift" {
		t.Fatalf("want resume_closure_drift, got %d %v", code, drift)
	}
	if n, _ := f.writeCount(); n != 0 {
		t.Fatal("a write went under a changed connector")
	}
	os.WriteFile(filepath.Join(w.dir, manifest), []byte(forgeConnector(f.srv.URL, "required", "1500")), 0o644)
	done, code := w.run(approve, nil, "resume", str(paused, "run_id"), "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" {
		t.Fatalf("resume: %d %v", code, done)
	}
}

// skill inspect shows a manifest operation as the kernel will run it: its
// connector's required approval, its declared price, a write's change.
func TestInspectShowsManifestOperation(t *testing.T) {
	f := newForge(t)
	w := forgeWorkspace(t, f, "required", "1500")
	out, code := w.run("", nil, "skill", "inspect", "./forge#publish", "--json")
	if code != 0 {
		t.Fatalf("inspect: %d %v", code, out)
	}
	step := get(out, "steps", "0")
	if str(step, "approval", "gate") != "operation" || str(step, "waits") != "needs_approval" || get(step, "cost", "usd_micro") != float64(1500) {
		t.Fatalf("inspected step: %v", step)
	}
	if n, _ := f.writeCount(); n != 0 {
		t.Fatal("inspect sent a request")
	}
}
