package packet

import (
	"errors"
	"fmt"
	"os"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// MaxContent bounds the packet a reference may give an input: a packet is
// data a step reads whole, not a file to page through.
const MaxContent = 16 << 20

// IsReference reports whether v is offered as a reference to a project
// artifact (a runx.artifact.v1 descriptor) rather than as the packet.
func IsReference(v any) bool {
	m, ok := v.(map[string]any)
	return ok && m["schema"] == artifactstore.DescriptorSchema
}

// Resolve gives an input of packet s the content a reference names. The
// reference is a runx.artifact.v1 descriptor of this project's store:
// one the run holds (its ref, which an earlier call of the run returned)
// or one an earlier run left (its artifact_id and root, as artifact.open
// takes). The content's size and digest are checked against the
// reference, then the packet's schema against the content. It answers
// the value and the artifact, to be named in the call's receipt.
//
// Refused: a reference naming another store, a host path or a URL
// (packet_ref_outside_store); one the store does not hold
// (packet_ref_not_found); content whose digest is not the reference's
// (packet_ref_digest_mismatch); an artifact kept as another packet, or
// content that does not meet s (packet_invalid).
func Resolve(store *artifactstore.Store, runIDs []string, ref any, s *Schema) (any, artifactstore.Descriptor, error) {
	d, err := readReference(ref)
	if err != nil {
		return nil, d, err
	}
	if d.Root != "" && d.Root != store.Root() {
		return nil, d, contract.Errorf(errcode.PacketRefOutsideStore, "the reference names another project's artifact store; a packet input takes only artifacts this project holds")
	}
	rec := &artifactstore.Record{Digest: d.Digest, Bytes: d.Bytes, MediaType: MediaType}
	if d.Ref != "" {
		held, err := lookup(store, runIDs, d.Ref)
		switch {
		case errors.Is(err, artifactstore.ErrRefUnknown) && d.Root == "":
			return nil, d, contract.Errorf(errcode.PacketRefNotFound, "no run here holds artifact %s; pass a reference an earlier call of this run returned, or its artifact_id and root", d.Ref)
		case err != nil && !errors.Is(err, artifactstore.ErrRefUnknown):
			return nil, d, contract.Errorf(errcode.PacketStoreUnavailable, "artifact %s cannot be read: %v", d.Ref, err)
		case err == nil:
			if held.Digest != d.Digest || held.Bytes != d.Bytes {
				return nil, d, contract.Errorf(errcode.PacketRefDigestMismatch, "artifact %s holds %s (%d bytes), not the %s (%d bytes) the reference names", d.Ref, held.Digest, held.Bytes, d.Digest, d.Bytes)
			}
			if held.Packet != "" && held.Packet != s.ID {
				return nil, d, contract.Errorf(errcode.PacketInvalid, "artifact %s is a packet %s, not %s", d.Ref, held.Packet, s.ID)
			}
			rec = held
		}
	}
	if rec.Ref == "" && d.ArtifactID != d.Digest {
		return nil, d, contract.Errorf(errcode.PacketRefDigestMismatch, "the reference's artifact_id and digest differ; a kept artifact is named by its digest")
	}
	content, err := store.ReadAll(rec, MaxContent)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, d, contract.Errorf(errcode.PacketRefNotFound, "this project's artifact store holds no artifact %s", d.Digest)
	case errors.Is(err, artifactstore.ErrDigestMismatch):
		return nil, d, contract.Errorf(errcode.PacketRefDigestMismatch, "the stored content is not the %s (%d bytes) the reference names", d.Digest, d.Bytes)
	case err != nil:
		return nil, d, contract.Errorf(errcode.PacketStoreUnavailable, "artifact %s cannot be read: %v", d.Digest, err)
	}
	v, err := jsonvalue.Decode(content)
	if err != nil {
		return nil, d, contract.Errorf(errcode.PacketInvalid, "artifact %s is not JSON: %v", d.Digest, err)
	}
	if err := s.Check(v); err != nil {
		return nil, d, err
	}
	out := d
	out.Schema, out.ArtifactID, out.Root = artifactstore.DescriptorSchema, rec.Digest, store.Root()
	out.MediaType, out.Packet = rec.MediaType, s.ID
	if rec.Ref != "" {
		out.Origin, out.Labels.Sharing = rec.Origin, rec.Sharing
	}
	return v, out, nil
}

// lookup is the record of ref in the first of runIDs that holds it.
func lookup(store *artifactstore.Store, runIDs []string, ref string) (*artifactstore.Record, error) {
	for _, id := range runIDs {
		r, err := store.Lookup(id, ref)
		if !errors.Is(err, artifactstore.ErrRefUnknown) {
			return r, err
		}
	}
	return nil, artifactstore.ErrRefUnknown
}

// readReference reads the fields of a reference runx checks and refuses
// any that would take the read out of the store: a host path, a URL.
func readReference(ref any) (artifactstore.Descriptor, error) {
	var d artifactstore.Descriptor
	m, ok := ref.(map[string]any)
	if !ok || m["schema"] != artifactstore.DescriptorSchema {
		return d, contract.Errorf(errcode.PacketInvalid, "a reference is a runx.artifact.v1 descriptor")
	}
	for _, k := range []string{"path", "uri", "url", "file", "source"} {
		if _, ok := m[k]; ok {
			return d, contract.Errorf(errcode.PacketRefOutsideStore, "the reference names a %s; a packet reference names an artifact of the project's store, never a place outside it", k)
		}
	}
	d.Schema = artifactstore.DescriptorSchema
	d.Ref, _ = m["ref"].(string)
	d.ArtifactID, _ = m["artifact_id"].(string)
	d.Root, _ = m["root"].(string)
	d.Digest, _ = m["digest"].(string)
	bytes, ok := m["bytes"]
	n, whole := wholeNumber(bytes)
	switch {
	case d.Ref != "" && !artifactstore.ValidRef(d.Ref):
		return d, contract.Errorf(errcode.PacketRefOutsideStore, "the reference's ref %q is not an artifact reference (art_<32 hex>)", short(d.Ref))
	case !canon.ValidDigest(d.Digest):
		return d, contract.Errorf(errcode.PacketRefDigestMismatch, "the reference's digest is not sha256:<64 lowercase hex>")
	case d.Ref == "" && (d.ArtifactID == "" || d.Root == ""):
		return d, contract.Errorf(errcode.PacketRefOutsideStore, "the reference names neither a ref of this run nor an artifact_id and root of this project's store")
	case !ok || !whole || n < 0:
		return d, contract.Errorf(errcode.PacketInvalid, "the reference's bytes is not a size")
	}
	d.Bytes = n
	return d, nil
}

func wholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

func short(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s...", s[:40])
	}
	return s
}
