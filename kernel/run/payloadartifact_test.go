package run

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// largeSend is an operation its connector declares approval: required, so
// its gate carries the call's whole input: a 70 KiB body makes a payload
// past the inline maximum.
const largeSend = `methods:
  m:
    inputs:
      body: { type: string, required: true }
    steps:
      - { id: a, operation: conn/send, inputs: { body: $input.body } }
`

// openStubAt opens a kernel on a workspace an earlier kernel used, served
// by the same stub plugins: what a restart of runx is.
func openStubAt(t *testing.T, ws string, s *stub) *Kernel {
	t.Helper()
	k, err := Open(context.Background(), Options{
		Workspace: ws, HomeDir: filepath.Join(ws, ".home"), RunxVersion: "0.1.0",
		LookupEnv: func(string) (string, bool) { return "", false },
	})
	if err != nil {
		t.Fatal(err)
	}
	k.engine.Host = newStubHost(t, s, conn{s})
	return k
}

func largeBody(mark string) string { return mark + strings.Repeat("x", 70<<10) + mark }

// pauseLarge runs largeSend to its gate and returns the paused envelope.
func pauseLarge(t *testing.T, k *Kernel, body string) *contract.SkillRun {
	t.Helper()
	dir := writeSkill(t, k, "s", largeSend, nil)
	in, _ := json.Marshal(map[string]string{"body": body})
	env := runSkill(t, k, dir, "m", string(in), `{"effects":"allow"}`)
	if env.Status != contract.StatusNeedsApproval || len(env.Requests) != 1 {
		t.Fatalf("the send waits on its approval: %s %q %+v", env.Status, errCode(env), env.Requests)
	}
	return env
}

// readBlob reads an artifact as a host does, through the project's
// artifact store: the run's record of the descriptor's ref, and its
// content held to the record's size and digest.
func readBlob(t *testing.T, k *Kernel, runID string, a *contract.ArtifactDescriptor) []byte {
	t.Helper()
	st, err := artifactstore.Open(k.engine.ProjectDir)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Lookup(runID, a.Ref)
	if err != nil {
		t.Fatalf("the run holds no record of %s: %v", a.Ref, err)
	}
	content, err := st.ReadAll(rec, rec.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if a.Root != st.Root() || a.ArtifactID != a.Digest || rec.Digest != a.Digest || rec.Bytes != a.Bytes {
		t.Fatalf("the descriptor %+v is not the store's record %+v (root %s)", a, rec, st.Root())
	}
	return content
}

// A payload past 64 KiB rides as payload_artifact, a project artifact of
// its canonical JSON whose digest is summary.payload_digest; a restarted
// runx reads the same descriptor and content back, and the approval
// resumes the run, which sends the exact input and seals.
func TestLargeApprovalPayloadRidesAsArtifact(t *testing.T) {
	ws, s := t.TempDir(), &stub{calls: map[string]int{}}
	k := openStubAt(t, ws, s)
	body := largeBody("mark-")
	env := pauseLarge(t, k, body)
	req := env.Requests[0]
	a := req.PayloadArtifact
	if req.Payload != nil || a == nil {
		t.Fatalf("a %d KiB payload rides inline: %d bytes, artifact %v", 70, len(req.Payload), a)
	}
	if a.Schema != "runx.artifact.v1" || !artifactstore.ValidRef(a.Ref) || a.Digest != req.Summary.PayloadDigest ||
		a.Bytes <= RequestPayloadInlineMax || a.MediaType != "application/json" || a.Origin != "stored" || a.Labels.Sharing == "" {
		t.Fatalf("descriptor %+v, payload digest %s", a, req.Summary.PayloadDigest)
	}
	raw, _ := json.Marshal(env)
	if bytes.Contains(raw, []byte(`"payload":`)) || !bytes.Contains(raw, []byte(`"payload_artifact":{"schema":"runx.artifact.v1"`)) {
		t.Fatalf("the envelope carries the payload inline or no descriptor: %.400s", raw)
	}
	if strings.Contains(string(raw), k.engine.ProjectDir) {
		t.Fatal("the envelope names a host path")
	}

	// A host recomputes the stable digest over exactly the artifact's
	// content, which is canonical JSON holding the call's input.
	content := readBlob(t, k, env.RunID, a)
	if !canon.IsCanonical(content) {
		t.Fatal("the artifact is not the payload's canonical JSON")
	}
	if d, err := canon.Digest(json.RawMessage(content)); err != nil || d != req.Summary.PayloadDigest {
		t.Fatalf("a host recomputes %s, the summary says %s (%v)", d, req.Summary.PayloadDigest, err)
	}
	var payload struct {
		Gate, Operation string
		Input           map[string]string
	}
	if err := json.Unmarshal(content, &payload); err != nil || payload.Operation != "conn/send" || payload.Input["body"] != body {
		t.Fatalf("the artifact is not what executes: %v %s %d", err, payload.Operation, len(payload.Input["body"]))
	}
	// No loose file beside the store.
	entries, _ := os.ReadDir(filepath.Join(k.engine.ProjectDir, "artifacts"))
	for _, e := range entries {
		if !e.IsDir() {
			t.Fatalf("a loose file %s beside the artifact store", e.Name())
		}
	}
	k.Close()

	// A new runx reads the same descriptor and content.
	k2 := openStubAt(t, ws, s)
	defer k2.Close()
	read, err := k2.ReadRun(context.Background(), env.RunID, "")
	if err != nil || len(read.Waiting) != 1 {
		t.Fatalf("history after a restart: %v %+v", err, read)
	}
	if w := read.Waiting[0]; w.Payload != nil || !reflect.DeepEqual(w.PayloadArtifact, a) || w.Summary.PayloadDigest != a.Digest || w.RequestDigest != req.RequestDigest {
		t.Fatalf("history shows %+v, the pause showed %+v", w, req)
	}
	got, err := k2.ReadRequestPayload(context.Background(), env.RunID, req.Address)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("read back after a restart: %v (%d bytes, want %d)", err, len(got), len(content))
	}
	if s.calls["conn/send"] != 0 {
		t.Fatal("the send ran before its approval")
	}
	done, err := k2.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, "")})
	if err != nil {
		t.Fatal(err)
	}
	if done.Outcome != seal.OutcomeCompleted || done.ReceiptID == "" || s.calls["conn/send"] != 1 {
		t.Fatalf("the approved run seals completed with one send: %s %q %d", done.Outcome, errCode(done), s.calls["conn/send"])
	}
	if sent, _ := resultOf(t, done)["input"].(map[string]any); sent["body"] != body {
		t.Fatal("the send was not given the approved input")
	}
}

// A changed artifact is refused where runx reads it back; a missing one
// is kept again from the run's record, which holds the payload; an address
// the run does not wait on is refused.
func TestPayloadArtifactTamperedIsRefused(t *testing.T) {
	k, _ := stubKernel(t)
	env := pauseLarge(t, k, largeBody("t-"))
	req := env.Requests[0]
	ctx := context.Background()
	st, err := artifactstore.Open(k.engine.ProjectDir)
	if err != nil {
		t.Fatal(err)
	}
	blob := st.BlobPath(req.PayloadArtifact.Digest)
	orig, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(orig, []byte("t-"), []byte("u-"), 1)
	if err := os.Chmod(blob, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob, tampered, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := k.ReadRequestPayload(ctx, env.RunID, req.Address); contract.CodeOf(err) != errcode.PayloadArtifactDamaged {
		t.Fatalf("a changed artifact is read back as the payload: %v", err)
	}
	if err := os.Remove(blob); err != nil {
		t.Fatal(err)
	}
	read, err := k.ReadRun(ctx, env.RunID, "")
	if err != nil || !reflect.DeepEqual(read.Waiting[0].PayloadArtifact, req.PayloadArtifact) {
		t.Fatalf("a read keeps a lost artifact again under the same descriptor: %v %+v", err, read)
	}
	if got, err := k.ReadRequestPayload(ctx, env.RunID, req.Address); err != nil || !bytes.Equal(got, orig) {
		t.Fatalf("the artifact kept again is not the payload: %v", err)
	}
	if _, err := k.ReadRequestPayload(ctx, env.RunID, "nowhere"); contract.CodeOf(err) != errcode.RequestNotWaiting {
		t.Fatalf("an address the run does not wait on: %v", err)
	}
}

// A payload holding a delivered value is scrubbed before it is kept: no
// form of it reaches the artifact store or any file of the project, and
// the artifact's digest then differs from summary.payload_digest, so a
// host that recomputes it does not offer Approve for what it cannot see.
func TestPayloadArtifactHoldsNoDeliveredValue(t *testing.T) {
	k, _ := stubKernel(t)
	const secret = "sk-live-9f8e7d6c5b4a"
	k.engine.Taint.Add(secret)
	env := pauseLarge(t, k, largeBody(secret))
	req := env.Requests[0]
	if req.PayloadArtifact == nil {
		t.Fatal("the payload rides inline")
	}
	content := readBlob(t, k, env.RunID, req.PayloadArtifact)
	if bytes.Contains(content, []byte(secret)) || !bytes.Contains(content, []byte("[redacted]")) || !canon.IsCanonical(content) {
		t.Fatal("the artifact holds the delivered value, or is not its scrubbed canonical JSON")
	}
	if canon.DigestBytes(content) == req.Summary.PayloadDigest {
		t.Fatal("a scrubbed payload's digest matches what executes")
	}
	// history finds the same artifact from the journal's scrubbed payload.
	read, err := k.ReadRun(context.Background(), env.RunID, "")
	if err != nil || !reflect.DeepEqual(read.Waiting[0].PayloadArtifact, req.PayloadArtifact) {
		t.Fatalf("history names another artifact: %v %+v", err, read.Waiting)
	}
	err = filepath.WalkDir(k.engine.ProjectDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		if err == nil && bytes.Contains(raw, []byte(secret)) {
			t.Errorf("%s holds the delivered value", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A child run's large payload is kept as an artifact of the child, the run
// that asks it, and shown from the root by its address there (kid#a); the
// root's history and read-back find it, and the approval seals both.
func TestChildRunLargePayloadIsTheChildsArtifact(t *testing.T) {
	k, s := stubKernel(t)
	writeSkill(t, k, "child", largeSend, nil)
	dir := writeSkill(t, k, "parent", `methods:
  m:
    inputs:
      body: { type: string, required: true }
    steps:
      - { id: kid, skill: ../child, inputs: { body: $input.body } }
`, nil)
	body := largeBody("kid-")
	in, _ := json.Marshal(map[string]string{"body": body})
	env := runSkill(t, k, dir, "m", string(in), `{"effects":"allow"}`)
	if env.Status != contract.StatusNeedsApproval || len(env.Requests) != 1 || env.Requests[0].Address != "kid#a" {
		t.Fatalf("the root waits on its child's send: %s %q %+v", env.Status, errCode(env), env.Requests)
	}
	req := env.Requests[0]
	if req.Payload != nil || req.PayloadArtifact == nil {
		t.Fatal("the child's large payload rides inline")
	}
	ctx := context.Background()
	children, err := k.journal.Children(ctx, env.RunID)
	if err != nil || len(children) != 1 {
		t.Fatalf("children %v %v", children, err)
	}
	content := readBlob(t, k, children[0].RunID, req.PayloadArtifact)
	if canon.DigestBytes(content) != req.Summary.PayloadDigest {
		t.Fatal("the child's artifact is not the payload its summary digests")
	}
	st, _ := artifactstore.Open(k.engine.ProjectDir)
	if _, err := st.Lookup(env.RunID, req.PayloadArtifact.Ref); err == nil {
		t.Fatal("the ref names an artifact of the root, which does not ask the request")
	}
	read, err := k.ReadRun(ctx, env.RunID, "")
	if err != nil || len(read.Waiting) != 1 || !reflect.DeepEqual(read.Waiting[0].PayloadArtifact, req.PayloadArtifact) {
		t.Fatalf("the root's history: %v %+v", err, read)
	}
	if got, err := k.ReadRequestPayload(ctx, env.RunID, "kid#a"); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("read back from the root: %v", err)
	}
	done, err := k.engine.Resume(ctx, ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, "")})
	if err != nil || done.Outcome != seal.OutcomeCompleted || s.calls["conn/send"] != 1 {
		t.Fatalf("the approved child: %v %+v", err, done)
	}
}

// A payload past 64 KiB that cannot be kept in the project's artifact
// store (here a file stands where the store's directory belongs) is not
// reported: the pause fails with payload_artifact_unavailable rather than
// offer a request whose payload a host could never read.
func TestPayloadArtifactUnavailableIsRefused(t *testing.T) {
	ws, s := t.TempDir(), &stub{calls: map[string]int{}}
	k := openStubAt(t, ws, s)
	dir := writeSkill(t, k, "s", largeSend, nil)
	if err := os.MkdirAll(k.engine.ProjectDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(k.engine.ProjectDir, "artifacts"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"body": largeBody("blocked-")})
	env, err := k.Skill(context.Background(), SkillRequest{Ref: dir, Method: "m",
		Inputs: pkg.InputSource{Document: in, HasDocument: true}, Authority: []byte(`{"effects":"allow"}`)})
	code := contract.CodeOf(err)
	if err == nil && env != nil {
		code = errcode.Code(errCode(env))
	}
	if code != errcode.PayloadArtifactUnavailable {
		t.Fatalf("a payload the store cannot keep: err %v, envelope %+v", err, env)
	}
	if env != nil && env.Status == contract.StatusNeedsApproval {
		t.Fatalf("a request whose payload was not kept is reported: %+v", env.Requests)
	}
	if s.calls["conn/send"] != 0 {
		t.Fatal("the send went out without its approval")
	}
}
