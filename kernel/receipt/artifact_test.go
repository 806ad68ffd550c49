package receipt

import (
	"context"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func artifactsBody(runID string, arts ...Artifact) Body {
	b := stepBody(runID, "walk")
	b.Artifacts = arts
	return b
}

var (
	docArtifact  = Artifact{Label: "input/doc", Ref: "art_0123456789abcdef0123456789abcdef", Digest: "sha256:" + strings.Repeat("a", 64), Bytes: 70011, MediaType: "application/json"}
	itemArtifact = Artifact{Label: "input/items/0", Ref: "art_fedcba9876543210fedcba9876543210", Digest: "sha256:" + strings.Repeat("b", 64), Bytes: 30722}
)

// TestArtifactsAreSignedAndVerified: a body's artifacts seal, verify, and
// are covered by the signature: any change to one fails verification.
func TestArtifactsAreSignedAndVerified(t *testing.T) {
	st := newTestStore(t)
	sg := newTestSigner(t, "own")
	x := sealAndPutRoot(t, st, sg, artifactsBody("run-1", docArtifact, itemArtifact))
	keys := NewKeySet(sg.PublicKey())
	if rep := Verify(context.Background(), st, x.r.ID, keys, Limits{}); rep.Status != StatusVerified {
		t.Fatalf("status %s: %s", rep.Status, describe(rep))
	}
	if !strings.Contains(string(x.bytes), `"artifacts":[{"bytes":70011,"digest":"sha256:aaaa`) {
		t.Fatalf("the canonical receipt does not hold the artifacts in order: %.300s", x.bytes)
	}
	for _, edit := range [][2]string{
		{`"bytes":70011`, `"bytes":70012`},
		{`"label":"input/doc"`, `"label":"input/dog"`},
		{"sha256:" + strings.Repeat("b", 64), "sha256:" + strings.Repeat("c", 64)},
		{`"ref":"art_0123`, `"ref":"art_1123`},
	} {
		changed := strings.Replace(string(x.bytes), edit[0], edit[1], 1)
		if changed == string(x.bytes) {
			t.Fatalf("nothing to edit for %s", edit[0])
		}
		overwrite(t, st, x.r.ID, []byte(changed))
		rep := Verify(context.Background(), st, x.r.ID, keys, Limits{})
		wantProblem(t, rep, StatusInvalid, "receipt_digest_mismatch", x.r.ID)
	}
}

// TestArtifactsRefusals: a body whose artifacts are malformed, repeated or
// out of order is never sealed.
func TestArtifactsRefusals(t *testing.T) {
	sg := newTestSigner(t, "own")
	bad := func(mut func(*Artifact)) Artifact { a := docArtifact; mut(&a); return a }
	for name, arts := range map[string][]Artifact{
		"empty label":   {bad(func(a *Artifact) { a.Label = "" })},
		"long label":    {bad(func(a *Artifact) { a.Label = strings.Repeat("l", 1025) })},
		"bad digest":    {bad(func(a *Artifact) { a.Digest = "sha256:XYZ" })},
		"negative size": {bad(func(a *Artifact) { a.Bytes = -1 })},
		"bad ref":       {bad(func(a *Artifact) { a.Ref = "/etc/passwd" })},
		"out of order":  {itemArtifact, docArtifact},
		"repeated":      {docArtifact, docArtifact},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := sg.Seal(artifactsBody("run-1", arts...))
			wantCode(t, err, errcode.ReceiptBodyInvalid)
		})
	}
}
