package run

import (
	"github.com/runxhq/runx/kernel/receipt"
	runstep "github.com/runxhq/runx/kernel/run/step"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/jsontext"
)

// A unit's receipt names the artifacts it used or produced
// (receipt.Artifact): the inputs a script step gave its module by
// reference, the references a script's call passed in place of content,
// and the runx.artifact.v1 descriptor a capability answered. The kernel
// knows an artifact by that contract format alone, never by which
// capability made it.

// withArtifacts adds more to a body's artifacts (kernel/run/step).
var withArtifacts = runstep.WithArtifacts

// outputArtifact is the artifact a capability's result describes, when the
// result is a runx.artifact.v1 descriptor with a digest and a size (the
// unit produced it: admitted, stored or opened; labelled output) or a
// runx.artifact_page.v1 page (the unit read it; labelled read, with the
// whole artifact's digest and size). Its receipt names it.
func outputArtifact(output any) (receipt.Artifact, bool) {
	m, ok := output.(map[string]any)
	if !ok {
		return receipt.Artifact{}, false
	}
	label := map[any]string{artifactstore.Schema: "output", artifactstore.PageSchema: "read"}[m["schema"]]
	if label == "" {
		return receipt.Artifact{}, false
	}
	digest, _ := m["digest"].(string)
	if !canon.ValidDigest(digest) {
		return receipt.Artifact{}, false
	}
	bytes, ok := jsontext.WholeNumber(m["bytes"])
	if !ok || bytes < 0 {
		return receipt.Artifact{}, false
	}
	a := receipt.Artifact{Label: label, Digest: digest, Bytes: bytes}
	if ref, _ := m["ref"].(string); artifactstore.ValidRef(ref) {
		a.Ref = ref
	}
	if mt, _ := m["media_type"].(string); mt != "" && len(mt) <= 255 {
		a.MediaType = mt
	}
	return a, true
}
