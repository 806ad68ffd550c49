package packet

import (
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// ArtifactPacket is the descriptor of a project artifact: an input typed
// with it receives the descriptor itself, not the content it names.
const ArtifactPacket = artifactstore.DescriptorSchema

// MediaType is a packet artifact's media type: its content is the canonical
// JSON of the packet's data; which packet it is, its record says.
const MediaType = "application/json"

// Ref is the reference a run gives the packet artifact it kept under
// label: the same for the same value on every drive, so a step driven
// again names the same artifact.
func Ref(runID, label, digest string) string {
	return "art_" + artifactstore.HexDigest([]byte(runID + "\x00packet\x00" + label + "\x00" + digest))[:32]
}

// Keep checks value against s and keeps it as a project artifact of that
// packet, a reference of run runID made under label (output/<name> for a
// step's output), durably before it answers. It answers the artifact's
// descriptor. A value that does not meet the schema is packet_invalid and
// nothing is kept.
func Keep(store *artifactstore.Store, runID, label string, s *Schema, value any) (artifactstore.Descriptor, error) {
	if err := s.Check(value); err != nil {
		return artifactstore.Descriptor{}, err
	}
	return keep(store, runID, label, s.ID, value)
}

// KeepValue keeps a value that is no packet (what a call returned beside
// its packet outputs) as a project artifact of run runID, as Keep does.
func KeepValue(store *artifactstore.Store, runID, label string, value any) (artifactstore.Descriptor, error) {
	return keep(store, runID, label, "", value)
}

func keep(store *artifactstore.Store, runID, label, id string, value any) (artifactstore.Descriptor, error) {
	what := "the value"
	if id != "" {
		what = "packet " + id
	}
	content, err := canon.Canonical(value)
	if err != nil {
		return artifactstore.Descriptor{}, contract.Errorf(errcode.PacketInvalid, "%s has no canonical JSON: %v", what, err)
	}
	digest, err := store.KeepBytes(content)
	if err != nil {
		return artifactstore.Descriptor{}, contract.Errorf(errcode.PacketStoreUnavailable, "%s cannot be kept in the project's artifact store: %v", what, err)
	}
	rec := &artifactstore.Record{Ref: Ref(runID, label, digest), RunID: runID, Digest: digest, Bytes: int64(len(content)),
		MediaType: MediaType, Sharing: artifactstore.SharingDefault, Origin: artifactstore.OriginStored, Packet: id}
	err = store.WithRunLock(runID, func(dir string) error {
		if have, err := store.Lookup(runID, rec.Ref); err == nil && *have == *rec {
			return nil
		}
		return artifactstore.WriteRecord(dir, rec)
	})
	if err != nil {
		return artifactstore.Descriptor{}, contract.Errorf(errcode.PacketStoreUnavailable, "%s cannot be recorded in the project's artifact store: %v", what, err)
	}
	return DescriptorOf(store, rec), nil
}

// DescriptorOf is the runx.artifact.v1 descriptor of a record of store.
func DescriptorOf(store *artifactstore.Store, r *artifactstore.Record) artifactstore.Descriptor {
	return artifactstore.Descriptor{Schema: artifactstore.DescriptorSchema, Ref: r.Ref, ArtifactID: r.Digest, Root: store.Root(),
		Digest: r.Digest, Bytes: r.Bytes, MediaType: r.MediaType, Origin: r.Origin, Packet: r.Packet,
		Labels: artifactstore.Labels{Sharing: r.Sharing}}
}
