package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// MigrateConfig is one `runx data migrate`. Paths are absolute and already
// held to the workspace by the caller.
type MigrateConfig struct {
	Path string
	// BackupPath is where the backup goes; it must not exist. Used only when
	// the file is migrated.
	BackupPath string
	// Source is the data_source_ref given to formerly unscoped events.
	Source string
	// DatabaseName and BackupName are the paths as the operator named them
	// (workspace-relative), for the proof.
	DatabaseName, BackupName string
	// BusyTimeout bounds the wait for the exclusive lock; 0 means 5s.
	BusyTimeout time.Duration
	// Limits are the store's caps every migrated event must fit; zero means
	// the defaults, which the store plugin opens every SQLite store with.
	Limits driver.Limits
}

// Migrate brings the store file at cfg.Path to the current schema and
// proves it. A current file gets a current proof and is not changed. An
// empty, unknown or partial one is refused before anything is written, and
// no backup is made. A recognized legacy one is migrated under an exclusive
// lock: a new file is built beside it, the original is backed up, the new
// file is verified, then renamed over the original, so any failure before
// the rename leaves the original as it was.
func Migrate(ctx context.Context, cfg MigrateConfig) (*Proof, error) {
	lim, err := cfg.check()
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(cfg.Path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
		return nil, driver.Errorf(errcode.DataMigrationDatabaseMissing, "there is no database file at %s", cfg.DatabaseName)
	}
	if err != nil {
		return nil, migrationFailure("open", err)
	}
	look, err := lookAtFile(ctx, cfg.Path)
	if err != nil {
		return nil, err
	}
	switch {
	case look.State == StateCurrent:
		return currentProof(ctx, cfg, lim)
	case look.State == StateEmpty:
		return nil, driver.Errorf(errcode.DataMigrationEmpty, "%s holds no store, so there is nothing to migrate; it was left untouched and no backup was made", cfg.DatabaseName)
	case !look.State.Legacy():
		return nil, driver.Errorf(errcode.StoreSchemaUnrecognized,
			"%s holds neither the current store schema nor the legacy one this runx recognizes (a partial, newer or foreign schema); it was left untouched and no backup was made", cfg.DatabaseName)
	}
	return migrateLegacy(ctx, cfg, lim)
}

func (cfg *MigrateConfig) check() (driver.Limits, error) {
	for _, p := range []string{cfg.Path, cfg.BackupPath} {
		if !filepath.IsAbs(p) || strings.ContainsAny(p, "?#") {
			return driver.Limits{}, driver.Errorf(errcode.InvalidConfig, "migration paths must be absolute file paths without '?' or '#'")
		}
	}
	if filepath.Clean(cfg.Path) == filepath.Clean(cfg.BackupPath) {
		return driver.Limits{}, driver.Errorf(errcode.DataMigrationBackupExists, "the backup path is the database itself; name another --backup")
	}
	// The source is checked as the driver checks a stream's source.
	probe := driver.Stream{Source: cfg.Source, Resource: driver.Resource{Name: "r", Kind: driver.KindEventStream}, Key: "k"}
	if err := driver.ValidateStream(probe); err != nil {
		return driver.Limits{}, driver.Errorf(errcode.DataMigrationSourceInvalid, "--source: %s", driver.AsError(err).Message)
	}
	if cfg.BusyTimeout <= 0 {
		cfg.BusyTimeout = 5 * time.Second
	}
	return cfg.Limits.Normalize()
}

// lookAtFile fingerprints a file without changing it.
func lookAtFile(ctx context.Context, path string) (schemaLook, error) {
	db, conn, err := openReadOnly(ctx, path)
	if err != nil {
		return schemaLook{}, openFailure("inspect", err)
	}
	defer db.Close()
	defer conn.Close()
	look, err := lookAt(ctx, conn)
	if err != nil {
		return look, openFailure("inspect", err)
	}
	return look, nil
}

// currentProof proves a current store as it stands, read-only: nothing is
// changed and no backup is made.
func currentProof(ctx context.Context, cfg MigrateConfig, lim driver.Limits) (*Proof, error) {
	look, sum, _, err := verifyReopened(ctx, cfg.Path, lim)
	if err != nil {
		if driver.CodeOf(err) != "" {
			return nil, err
		}
		return nil, migrationFailure("verify", err)
	}
	store := currentStoreProof(look, sum)
	p := &Proof{
		Schema: ProofSchema, Status: ProofCurrent, Database: cfg.DatabaseName, Source: cfg.Source,
		Before: store, After: store, Verification: Verification{Reopened: passProof(sum)},
	}
	return p, p.seal()
}

func migrateLegacy(ctx context.Context, cfg MigrateConfig, lim driver.Limits) (*Proof, error) {
	if _, err := os.Lstat(cfg.BackupPath); err == nil {
		return nil, driver.Errorf(errcode.DataMigrationBackupExists, "%s already exists; a backup never overwrites a file: name another --backup", cfg.BackupName)
	}
	orig, err := lockExclusive(ctx, cfg.Path, cfg.BusyTimeout)
	if err != nil {
		return nil, err
	}
	defer orig.close()
	// Looked at again under the lock: the file may have changed since.
	look, err := lookAt(ctx, orig.conn)
	if err != nil {
		return nil, migrationFailure("inspect", err)
	}
	if !look.State.Legacy() {
		return nil, driver.Errorf(errcode.StoreSchemaUnrecognized, "%s changed while the migration took its lock; nothing was changed: migrate again", cfg.DatabaseName)
	}
	before, err := summarizeLegacy(ctx, orig.conn, look.State, cfg.Source)
	if err != nil {
		return nil, migrationFailure("read", err)
	}
	// The new file is built first: legacy rows the current store cannot
	// hold are refused before a backup exists. Nothing has changed either
	// way until the rename, and the lock keeps everyone else out until then.
	tmp, err := tempPath(cfg.Path)
	if err != nil {
		return nil, migrationFailure("create", err)
	}
	defer removeWithSideFiles(tmp)
	built, err := build(ctx, orig.conn, look.State, cfg.Source, tmp, lim)
	if err != nil {
		return nil, err
	}
	if built.Content.Events != before.Events || built.Content.Streams != before.Streams || built.Assigned != before.Unscoped {
		return nil, driver.Errorf(errcode.DataMigrationUnverified, "the migration wrote %d events in %d streams from %d legacy rows in %d streams; the original was left as it was",
			built.Content.Events, built.Content.Streams, before.Events, before.Streams)
	}
	backupDigest, err := makeBackup(ctx, orig, cfg.BackupPath, look, before)
	if err != nil {
		return nil, err
	}
	v, err := verifyMigrated(ctx, tmp, built, lim)
	if err != nil {
		return nil, err
	}
	if err := swap(orig, tmp, cfg.Path); err != nil {
		return nil, err
	}
	p := &Proof{
		Schema: ProofSchema, Status: ProofMigrated, Database: cfg.DatabaseName, Source: cfg.Source,
		Backup: &BackupProof{Path: cfg.BackupName, Digest: backupDigest, ContentDigest: before.Digest},
		Before: StoreProof{
			State: look.State, SchemaVersion: SchemaVersionLegacy, ApplicationID: look.ApplicationID, UserVersion: look.UserVersion,
			SchemaFingerprint: look.Fingerprint, Events: before.Events, Streams: before.Streams,
			ContentDefinition: LegacyContentDefinition, ContentDigest: before.Digest,
		},
		After: currentStoreProof(v.Look, v.Reopened),
		Changes: ChangeProof{
			AssignedEvents: built.Assigned, RedigestedEvents: built.Redigested, RetypedEvents: built.Retyped,
			DroppedTables: slices.DeleteFunc(slices.Clone(look.Tables), func(t string) bool { return t == "runx_events" }),
		},
		Verification: Verification{Reopened: passProof(v.Reopened), Readback: new(passProof(v.Readback))},
	}
	return p, p.seal()
}
