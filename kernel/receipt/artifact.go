package receipt

import (
	"fmt"
	"regexp"

	"github.com/runxhq/runx/sdk/canon"
)

// Artifact names one artifact a unit used or produced, so a reader and
// `runx verify` know exactly which bytes were involved: its reference in
// the run, the digest and size of its content, its media type, and the
// label saying what it was to the unit (input/<name> for a script's input
// given by reference, call/<index> for one a script read that its call
// returned, input/<pointer> for a call's input given by one, output for an
// artifact the unit's result describes, read for one it read a page of,
// output/<name> for a packet output kept as an artifact of its packet,
// input/<name> too for a packet input given by reference). A body lists them
// in label order, each label once; the signature covers them as it covers
// the rest of the body.
type Artifact struct {
	Bytes     int64  `json:"bytes"`
	Digest    string `json:"digest"`
	Label     string `json:"label"`
	MediaType string `json:"media_type,omitempty"`
	// Packet is the packet schema the artifact's content meets, for a
	// packet output or a packet input given by reference (kernel/packet).
	Packet string `json:"packet,omitempty"`
	Ref    string `json:"ref,omitempty"`
}

var artifactRef = regexp.MustCompile(`^art_[0-9a-f]{32}$`)

// maxArtifactLabel bounds a label: a name of where the artifact sat, not a
// value.
const maxArtifactLabel = 1024

// validateArtifacts holds a body's artifacts to their shape and order.
func validateArtifacts(artifacts []Artifact) error {
	for i, a := range artifacts {
		if a.Label == "" || len(a.Label) > maxArtifactLabel {
			return bodyInvalid(fmt.Sprintf("artifacts[%d].label is empty or longer than %d bytes", i, maxArtifactLabel))
		}
		if !canon.ValidDigest(a.Digest) {
			return bodyInvalid(fmt.Sprintf("artifacts[%d].digest is not sha256:<64 lowercase hex>", i))
		}
		if a.Bytes < 0 {
			return bodyInvalid(fmt.Sprintf("artifacts[%d].bytes is negative", i))
		}
		if a.Ref != "" && !artifactRef.MatchString(a.Ref) {
			return bodyInvalid(fmt.Sprintf("artifacts[%d].ref is not art_<32 lowercase hex>", i))
		}
		if i > 0 && artifacts[i-1].Label >= a.Label {
			return bodyInvalid(fmt.Sprintf("artifacts[%d] is out of label order or repeats its label", i))
		}
	}
	return nil
}
