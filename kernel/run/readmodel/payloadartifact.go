package readmodel

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"sort"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// RequestPayloadInlineMax is the largest payload a request carries inline;
// a larger one rides as payload_artifact, a project artifact of its
// canonical JSON in the same store artifact.store and a script's large
// inputs use (sdk/artifactstore), named by a runx.artifact.v1 descriptor:
// a ref of the run that asks, and the artifact_id, root, digest and size
// artifact.open checks. summary.payload_digest stays the digest of the
// value that executes, so a host reading the artifact recomputes it.
const RequestPayloadInlineMax = 64 << 10

// Codes of a request's payload artifact.

// payloadRef is the reference of a payload in the run that asks it: the
// same for the same payload on every drive and every read, so a pause
// reported again names the same artifact, and a changed payload another.
func payloadRef(runID, local, digest string) string {
	return "art_" + artifactstore.HexDigest([]byte(runID + "\x00request_payload\x00" + local + "\x00" + digest))[:32]
}

// payloadContent is what a payload's artifact holds: its canonical JSON,
// scrubbed of the taint set first, as every boundary is, so no delivered
// credential is kept. A scrubbed payload's digest is no longer
// summary.payload_digest, and a host that recomputes it does not offer
// Approve, as with a scrubbed inline payload.
func (e *Reader) payloadContent(payload []byte) []byte {
	content := e.Scrub(payload)
	if !canon.IsCanonical(content) {
		if c, err := canon.CanonicalJSON(content); err == nil {
			content = c
		}
	}
	return content
}

// payloadKeeper presents requests as a host is shown them, keeping each
// payload past the inline maximum as an artifact of the run that asks it.
// Contents go into one batch and records are written under each run's
// lock; commit makes them durable with one flush before anything names
// them. An artifact already kept (an earlier pause, a read) is not
// written again.
type payloadKeeper struct {
	e       *Reader
	store   *artifactstore.Store
	batch   *artifactstore.Batch
	records map[string][]*artifactstore.Record // new records, by run
}

// present gives req with a payload past the inline maximum replaced by
// its artifact's descriptor; runID and local name the run that asks it and
// its address there.
func (k *payloadKeeper) present(runID, local string, req contract.Request) (contract.Request, error) {
	if len(req.Payload) <= RequestPayloadInlineMax {
		return req, nil
	}
	content := k.e.payloadContent(req.Payload)
	if len(content) <= RequestPayloadInlineMax {
		req.Payload = content
		return req, nil
	}
	if k.store == nil {
		st, err := artifactstore.Open(k.e.ProjectDir)
		if err != nil {
			return req, contract.Errorf(errcode.PayloadArtifactUnavailable, "request %s: its %d byte payload cannot be kept in the project's artifact store: %v", req.Address, len(content), err)
		}
		k.store, k.batch = st, st.NewBatch()
	}
	digest := canon.DigestBytes(content)
	rec := &artifactstore.Record{Ref: payloadRef(runID, local, digest), RunID: runID, Digest: digest, Bytes: int64(len(content)),
		MediaType: "application/json", Sharing: artifactstore.SharingDefault, Origin: artifactstore.OriginStored}
	if _, err := os.Lstat(k.store.BlobPath(digest)); err != nil {
		// Batch.Keep writes the content only where no blob is.
		if _, err := k.batch.Keep(content); err != nil {
			return req, contract.Errorf(errcode.PayloadArtifactUnavailable, "request %s: its payload cannot be kept in the project's artifact store: %v", req.Address, err)
		}
	}
	if have, err := k.store.Lookup(runID, rec.Ref); err != nil || *have != *rec {
		k.records[runID] = append(k.records[runID], rec)
	}
	req.Payload = nil
	req.PayloadArtifact = &contract.ArtifactDescriptor{Schema: contract.ArtifactSchema, Ref: rec.Ref, ArtifactID: digest, Root: k.store.Root(),
		Digest: digest, Bytes: rec.Bytes, MediaType: rec.MediaType, Origin: rec.Origin, Labels: contract.ArtifactLabels{Sharing: rec.Sharing}}
	return req, nil
}

// commit writes the new records, each run's under its lock, and makes
// every content and record of the batch durable with one flush.
func (k *payloadKeeper) commit() error {
	if k.batch == nil {
		return nil
	}
	runs := make([]string, 0, len(k.records))
	for runID := range k.records {
		runs = append(runs, runID)
	}
	sort.Strings(runs) // one lock order
	for _, runID := range runs {
		err := k.store.WithRunLock(runID, func(dir string) error {
			for _, r := range k.records[runID] {
				if err := k.batch.WriteRecord(dir, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return contract.Errorf(errcode.PayloadArtifactUnavailable, "a request payload's artifact cannot be recorded for run %s: %v", runID, err)
		}
	}
	if err := k.batch.Commit(); err != nil {
		return contract.Errorf(errcode.PayloadArtifactUnavailable, "a request payload's artifact cannot be made durable: %v", err)
	}
	k.records = map[string][]*artifactstore.Record{}
	return nil
}

// PresentWaiting presents what runs wait on, each request from the run
// that asks it, kept durable before it returns: a host is never shown a
// reference to an artifact a crash could lose.
func (e *Reader) PresentWaiting(waiting []Waiting) ([]contract.Request, error) {
	k := &payloadKeeper{e: e, records: map[string][]*artifactstore.Record{}}
	out := make([]contract.Request, 0, len(waiting))
	for _, p := range waiting {
		req, err := k.present(p.RunID, p.Local, p.Request)
		if err != nil {
			return nil, err
		}
		out = append(out, req)
	}
	return out, k.commit()
}

// ReadRequestPayload is the exact payload of the request a run waits on
// at address (as runx history lists it): inline, or read back from its
// artifact and held to the artifact's size and digest, so no content
// changed after it was kept is given as what executes.
func (e *Reader) ReadRequestPayload(ctx context.Context, runID, address string) (json.RawMessage, error) {
	if _, err := e.Journal.GetRun(durable(ctx), runID); err != nil {
		return nil, err
	}
	var waiting []Waiting
	if err := e.CollectWaiting(ctx, runID, "", &waiting); err != nil {
		return nil, err
	}
	for _, p := range waiting {
		if p.Address != address {
			continue
		}
		shown, err := e.PresentWaiting([]Waiting{p})
		if err != nil {
			return nil, err
		}
		a := shown[0].PayloadArtifact
		if a == nil {
			return shown[0].Payload, nil
		}
		return e.readPayloadArtifact(p.RunID, address, a)
	}
	return nil, contract.Errorf(errcode.RequestNotWaiting, "run %s waits on no request at %s; runx history %s lists what it waits on", runID, address, runID)
}

// readPayloadArtifact reads a payload's artifact back through the run
// that asks it, held to its record and to the descriptor shown.
func (e *Reader) readPayloadArtifact(owner, address string, a *contract.ArtifactDescriptor) (json.RawMessage, error) {
	st, err := artifactstore.Open(e.ProjectDir)
	if err != nil {
		return nil, contract.Errorf(errcode.PayloadArtifactUnavailable, "the project's artifact store cannot be opened: %v", err)
	}
	rec, err := st.Lookup(owner, a.Ref)
	if err == nil && (rec.Digest != a.Digest || rec.Bytes != a.Bytes) {
		err = artifactstore.ErrDamaged
	}
	var content []byte
	if err == nil {
		content, err = st.ReadAll(rec, rec.Bytes)
	}
	switch {
	case err == nil:
		return content, nil
	case errors.Is(err, artifactstore.ErrDigestMismatch), errors.Is(err, artifactstore.ErrDamaged),
		errors.Is(err, artifactstore.ErrRefUnknown), errors.Is(err, fs.ErrNotExist):
		return nil, contract.Errorf(errcode.PayloadArtifactDamaged, "the artifact holding %s's payload (%s) is not the content that was kept: its size or digest differ, or it is gone", address, a.Ref)
	}
	return nil, err
}
