package sqlite

import (
	"encoding/json"

	"github.com/runxhq/runx/sdk/store/driver"
)

// ProofSchema names the migration proof document.
const ProofSchema = "runx.data.migration_proof.v1"

// Proof statuses.
const (
	ProofMigrated = "migrated" // a legacy store was migrated, verified and renamed into place
	ProofCurrent  = "current"  // the store was already current: nothing changed, no backup
)

// Schema versions a proof names.
const (
	SchemaVersionCurrent = "runx.store.sqlite.v1"
	SchemaVersionLegacy  = "runx.store.sqlite.legacy"
)

// Proof is runx.data.migration_proof.v1: what a migration found, did and
// verified. It holds no timestamps, so a store already current proves the
// same document every time. Its fields are declared in the order they are
// printed; result_digest is over the RFC 8785 form of the rest.
type Proof struct {
	Schema       string       `json:"schema"`
	Status       string       `json:"status"`
	Database     string       `json:"database"`
	Source       string       `json:"source"`
	Backup       *BackupProof `json:"backup"`
	Before       StoreProof   `json:"before"`
	After        StoreProof   `json:"after"`
	Changes      ChangeProof  `json:"changes"`
	Verification Verification `json:"verification"`
	ResultDigest string       `json:"result_digest,omitempty"`
}

// BackupProof is the backup a migration made before changing anything.
type BackupProof struct {
	Path string `json:"path"`
	// Digest is SHA-256 of the backup file's bytes.
	Digest string `json:"digest"`
	// ContentDigest is the backup's legacy content digest, recomputed from the
	// backup; it equals before.content_digest.
	ContentDigest string `json:"content_digest"`
}

// StoreProof describes a store file at one point.
type StoreProof struct {
	State             State  `json:"state"`
	SchemaVersion     string `json:"schema_version"`
	ApplicationID     int64  `json:"application_id"`
	UserVersion       int64  `json:"user_version"`
	SchemaFingerprint string `json:"schema_fingerprint"`
	Events            int64  `json:"events"`
	Streams           int64  `json:"streams"`
	ContentDefinition string `json:"content_definition"`
	ContentDigest     string `json:"content_digest"`
}

// ChangeProof counts what the migration changed beyond the schema.
type ChangeProof struct {
	// AssignedEvents is how many formerly unscoped events got the source.
	AssignedEvents int64 `json:"assigned_events"`
	// RedigestedEvents is how many legacy event_digest values were not the
	// digest of the event's canonical form and were replaced by it.
	RedigestedEvents int64 `json:"redigested_events"`
	// RetypedEvents is how many legacy event_type values were not the type
	// the current definition derives and were replaced by it.
	RetypedEvents int64 `json:"retyped_events"`
	// DroppedTables are the legacy tables not carried over: heads are derived
	// from events in the current schema, and the ledger has no successor.
	DroppedTables []string `json:"dropped_tables"`
}

// Verification is what the independent passes over the result found.
type Verification struct {
	// Reopened is the read-only pass over the file's bytes.
	Reopened PassProof `json:"reopened"`
	// Readback is the pass through the current driver's ListKeys and Read;
	// absent from a current proof, which changes nothing to read back.
	Readback *PassProof `json:"readback"`
}

// PassProof is one verification pass's count and content digest.
type PassProof struct {
	Events        int64  `json:"events"`
	Streams       int64  `json:"streams"`
	ContentDigest string `json:"content_digest"`
}

func passProof(s contentSummary) PassProof {
	return PassProof{Events: s.Events, Streams: s.Streams, ContentDigest: s.Digest}
}

func currentStoreProof(look schemaLook, s contentSummary) StoreProof {
	return StoreProof{
		State: look.State, SchemaVersion: SchemaVersionCurrent, ApplicationID: look.ApplicationID, UserVersion: look.UserVersion,
		SchemaFingerprint: look.Fingerprint, Events: s.Events, Streams: s.Streams,
		ContentDefinition: ContentDefinition, ContentDigest: s.Digest,
	}
}

// seal sets result_digest.
func (p *Proof) seal() error {
	p.ResultDigest = ""
	if p.Changes.DroppedTables == nil {
		p.Changes.DroppedTables = []string{}
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	canonical, err := driver.CanonicalJSON(raw)
	if err != nil {
		return err
	}
	p.ResultDigest = driver.Digest(canonical)
	return nil
}
