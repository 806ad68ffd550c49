package run

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/receipt"
)

// A result that is a runx.artifact.v1 descriptor names its artifact as the
// unit's output; anything short of one (another schema, no digest, a size
// that is not a whole number) names nothing.
func TestOutputArtifact(t *testing.T) {
	digest := "sha256:" + strings.Repeat("a", 64)
	a, ok := outputArtifact(map[string]any{"schema": "runx.artifact.v1", "ref": "art_0123456789abcdef0123456789abcdef", "digest": digest, "bytes": 12.0, "media_type": "text/plain"})
	if !ok || a != (receipt.Artifact{Label: "output", Ref: "art_0123456789abcdef0123456789abcdef", Digest: digest, Bytes: 12, MediaType: "text/plain"}) {
		t.Fatalf("descriptor: %+v %v", a, ok)
	}
	if a, ok := outputArtifact(map[string]any{"schema": "runx.artifact.v1", "artifact_id": digest, "digest": digest, "bytes": 3.0, "ref": "../x"}); !ok || a.Ref != "" {
		t.Fatalf("a retained descriptor names no ref it lacks: %+v", a)
	}
	// A page names the whole artifact it was read from.
	if a, ok := outputArtifact(map[string]any{"schema": "runx.artifact_page.v1", "ref": "art_0123456789abcdef0123456789abcdef", "digest": digest, "bytes": 70.0, "offset": 0.0, "data": "x"}); !ok || a.Label != "read" || a.Bytes != 70 || a.Ref == "" {
		t.Fatalf("page: %+v %v", a, ok)
	}
	for _, v := range []any{
		"text", map[string]any{"schema": "runx.process.v1", "digest": digest, "bytes": 1.0},
		map[string]any{"schema": "runx.artifact.v1", "digest": "sha256:x", "bytes": 1.0},
		map[string]any{"schema": "runx.artifact.v1", "digest": digest, "bytes": 1.5},
		map[string]any{"schema": "runx.artifact.v1", "digest": digest, "bytes": -1.0},
	} {
		if a, ok := outputArtifact(v); ok {
			t.Fatalf("%v named %+v", v, a)
		}
	}
	body := receipt.Body{}
	withArtifacts(&body, receipt.Artifact{Label: "output", Digest: digest}, receipt.Artifact{Label: "input/x", Digest: digest}, receipt.Artifact{Label: "output", Digest: digest})
	if len(body.Artifacts) != 2 || body.Artifacts[0].Label != "input/x" || body.Artifacts[1].Label != "output" {
		t.Fatalf("merged %+v", body.Artifacts)
	}
}
