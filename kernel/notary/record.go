package notary

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Schemas of what a notary signs and serves.
const (
	StatementSchema = "runx.notary_statement.v1"
	RecordSchema    = "runx.notary_record.v1"
	// SealAlg is the counter-seal's algorithm.
	SealAlg = "ed25519"
)

// TimeLayout is how a statement writes its time: UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Statement is what the notary counter-seals and what the log's leaf holds,
// as canonical JSON (fields in JCS order): the receipt's content hash, its
// id and signer, the time the notary saw it and the leaf's index in the log
// named by origin.
type Statement struct {
	ContentHash string `json:"content_hash"`
	LogIndex    int64  `json:"log_index"`
	NotarizedAt string `json:"notarized_at"`
	Origin      string `json:"origin"`
	ReceiptID   string `json:"receipt_id"`
	Schema      string `json:"schema"`
	SignerKeyID string `json:"signer_key_id"`
}

// Leaf is the statement's canonical bytes: the log's record for it and
// what the counter-seal signs.
func (s *Statement) Leaf() ([]byte, error) { return canon.Canonical(s) }

// Counterseal is the notary's signature over a statement's leaf.
type Counterseal struct {
	Alg   string `json:"alg"`
	KeyID string `json:"key_id"`
	Value string `json:"value"`
}

// Seal signs a statement's leaf with the notary's key.
func Seal(key ed25519.PrivateKey, leaf []byte) Counterseal {
	return Counterseal{Alg: SealAlg, KeyID: KeyID(key.Public().(ed25519.PublicKey)), Value: base64.StdEncoding.EncodeToString(ed25519.Sign(key, leaf))}
}

// Record is the document a notary answers and `runx verify --notary`
// reads: the statement, its counter-seal, a signed checkpoint and the
// statement's inclusion proof in the tree that checkpoint names.
type Record struct {
	Checkpoint     string      `json:"checkpoint"`
	Counterseal    Counterseal `json:"counterseal"`
	InclusionProof []tlog.Hash `json:"inclusion_proof"`
	// Link is the record's public /r link on the notary that served it.
	Link      string    `json:"link,omitempty"`
	Schema    string    `json:"schema"`
	Statement Statement `json:"statement"`
}

// Bounds on a record a reader accepts: a proof in a log of 2^63 entries
// holds at most 63 hashes; the whole document is a few KiB.
const (
	maxProofHashes = 63
	MaxRecordBytes = 64 << 10
)

// Verified is what checking a record proves.
type Verified struct {
	Record     *Record
	Checkpoint Checkpoint
}

// VerifyRecord checks a record document against the notary's key, offline:
// the counter-seal over the statement, the checkpoint's signature, and the
// statement's inclusion at its index in the checkpoint's tree. Whether that
// checkpoint is consistent with one seen before is State's to say.
func VerifyRecord(doc []byte, pub ed25519.PublicKey) (*Verified, error) {
	rec, err := DecodeRecord(doc)
	if err != nil {
		return nil, err
	}
	st := &rec.Statement
	leaf, err := st.Leaf()
	if err != nil {
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "the statement does not encode: %v", err)
	}
	cs := rec.Counterseal
	sig, derr := base64.StdEncoding.Strict().DecodeString(cs.Value)
	switch {
	case cs.Alg != SealAlg:
		return nil, contract.Errorf(errcode.NotaryCountersealInvalid, "the counter-seal's algorithm %q is not %s", cs.Alg, SealAlg)
	case cs.KeyID != KeyID(pub):
		return nil, contract.Errorf(errcode.NotaryCountersealInvalid, "the counter-seal names key %s, not the notary key given (%s)", cs.KeyID, KeyID(pub))
	case derr != nil || len(sig) != ed25519.SignatureSize || !ed25519.Verify(pub, leaf, sig):
		return nil, contract.Errorf(errcode.NotaryCountersealInvalid, "the counter-seal does not verify over the statement under the notary key %s", KeyID(pub))
	}
	if st.Origin != Origin(pub) {
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "the statement names the log %q; the notary key signs %q", st.Origin, Origin(pub))
	}
	cp, err := OpenCheckpoint(rec.Checkpoint, pub)
	if err != nil {
		return nil, err
	}
	if st.LogIndex >= cp.Size {
		return nil, contract.Errorf(errcode.NotaryProofInvalid, "the statement is entry %d; the checkpoint's tree holds %d", st.LogIndex, cp.Size)
	}
	if err := tlog.CheckRecord(rec.InclusionProof, cp.Size, cp.Root, st.LogIndex, tlog.RecordHash(leaf)); err != nil {
		return nil, contract.Errorf(errcode.NotaryProofInvalid, "the inclusion proof does not prove this statement at entry %d of the checkpoint's tree of %d", st.LogIndex, cp.Size)
	}
	return &Verified{Record: rec, Checkpoint: cp}, nil
}

// DecodeRecord reads a record document strictly and checks its shape.
func DecodeRecord(doc []byte) (*Record, error) {
	if len(doc) > MaxRecordBytes {
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "a notary record is at most %d bytes", MaxRecordBytes)
	}
	var rec Record
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil || dec.More() {
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "not a %s document: %v", RecordSchema, err)
	}
	st := &rec.Statement
	switch {
	case rec.Schema != RecordSchema:
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "schema %q is not %s", rec.Schema, RecordSchema)
	case st.Schema != StatementSchema:
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "the statement's schema %q is not %s", st.Schema, StatementSchema)
	case !canon.ValidDigest(st.ContentHash) || !canon.ValidDigest(st.ReceiptID) || !canon.ValidDigest(st.SignerKeyID):
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "the statement's content_hash, receipt_id and signer_key_id are sha256:<64 hex>")
	case st.LogIndex < 0:
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "the statement's log_index is negative")
	case len(rec.InclusionProof) > maxProofHashes:
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "the inclusion proof holds %d hashes; at most %d", len(rec.InclusionProof), maxProofHashes)
	}
	if _, err := time.Parse(TimeLayout, st.NotarizedAt); err != nil {
		return nil, contract.Errorf(errcode.NotaryDocumentInvalid, "notarized_at %q is not %s", st.NotarizedAt, TimeLayout)
	}
	return &rec, nil
}

// LinkPath is the public path of the record of a content hash.
func LinkPath(contentHash string) string { return "/r/" + contentHash }

// String names a record for a person.
func (r *Record) String() string {
	return fmt.Sprintf("%s at entry %d of %s", r.Statement.ContentHash, r.Statement.LogIndex, r.Statement.Origin)
}

// NewRecord assembles the record of a sealed statement in the tree of size
// entries r reads: the tree's signed checkpoint and the statement's
// inclusion proof in it.
func NewRecord(signer *CheckpointSigner, st Statement, seal Counterseal, size int64, r tlog.HashReader, link string) (*Record, error) {
	root, err := tlog.TreeHash(size, r)
	if err != nil {
		return nil, err
	}
	proof, err := tlog.ProveRecord(size, st.LogIndex, r)
	if err != nil {
		return nil, err
	}
	cp, err := signer.Sign(size, root)
	if err != nil {
		return nil, err
	}
	if proof == nil {
		proof = tlog.RecordProof{}
	}
	return &Record{Checkpoint: cp.Signed, Counterseal: seal, InclusionProof: proof, Link: link, Schema: RecordSchema, Statement: st}, nil
}
