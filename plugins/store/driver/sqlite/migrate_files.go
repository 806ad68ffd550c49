package sqlite

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// The files a migration makes: the backup, and the new store built beside
// the original and renamed over it only once it is verified.

// makeBackup writes a consistent copy of the locked original with VACUUM
// INTO (a snapshot of the committed database, WAL included, written as a
// fresh file), syncs it, and proves it: read back read-only, it must have
// the original's schema fingerprint and legacy content digest. It returns
// the digest of the backup's bytes, by which an operator can later check it.
func makeBackup(ctx context.Context, orig *exclusiveConn, path string, look schemaLook, before legacySummary) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", migrationFailure("backup", err)
	}
	if _, err := orig.conn.ExecContext(ctx, `VACUUM INTO ?1`, path); err != nil {
		if exists(path) {
			return "", driver.Errorf(errcode.DataMigrationBackupExists, "the backup path appeared while the migration ran; nothing was changed: name another --backup")
		}
		return "", migrationFailure("backup", err)
	}
	if err := errors.Join(atomicfile.Sync(path), atomicfile.Sync(filepath.Dir(path))); err != nil {
		return "", migrationFailure("backup", err)
	}
	db, conn, err := openReadOnly(ctx, path)
	if err != nil {
		return "", migrationFailure("backup", err)
	}
	defer db.Close()
	defer conn.Close()
	got, err := lookAt(ctx, conn)
	if err != nil {
		return "", migrationFailure("backup", err)
	}
	if got.Fingerprint != look.Fingerprint {
		return "", driver.Errorf(errcode.DataMigrationUnverified, "the backup's schema does not match the original's; nothing was changed")
	}
	sum, err := summarizeLegacy(ctx, conn, got.State, "")
	if err != nil {
		return "", migrationFailure("backup", err)
	}
	if sum.Events != before.Events || sum.Digest != before.Digest {
		return "", driver.Errorf(errcode.DataMigrationUnverified, "the backup's events do not match the original's; nothing was changed")
	}
	return fileDigest(path)
}

// tempPath names the new store beside the original, so the rename that
// puts it in place stays within one filesystem and is atomic.
func tempPath(path string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s.migrating-%s", path, hex.EncodeToString(b[:])), nil
}

// clearSideFiles makes sure nothing beside path could be applied to the
// file that will be at path: a WAL or rollback journal with content fails
// the migration. Empty ones are harmless (an empty WAL has no frames, an
// empty journal is not hot), and so is a shared-memory index, which its next
// opener rebuilds; they are left for whoever may have them open.
func clearSideFiles(path string) error {
	for _, suffix := range []string{"-wal", "-journal"} {
		fi, err := os.Lstat(path + suffix)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Size() > 0 {
			return fmt.Errorf("%s still holds %d bytes that were not checkpointed", filepath.Base(path+suffix), fi.Size())
		}
	}
	return nil
}

func removeWithSideFiles(path string) {
	os.Remove(path)
	for _, suffix := range []string{"-wal", "-journal", "-shm"} {
		os.Remove(path + suffix)
	}
}

// swap renames the verified new store over the original. The original's
// connection is closed first, which checkpoints and removes its WAL; a
// journal or WAL still holding content means the original did not close
// cleanly, and the swap is abandoned before the rename (a stale WAL beside
// the renamed file would be replayed into it).
func swap(orig *exclusiveConn, tmp, path string) error {
	if err := orig.close(); err != nil {
		return migrationFailure("closing the original", err)
	}
	if err := clearSideFiles(path); err != nil {
		return migrationFailure("closing the original", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return migrationFailure("swap", err)
	}
	if err := os.Chmod(tmp, fi.Mode().Perm()); err != nil {
		return migrationFailure("swap", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return migrationFailure("swap", err)
	}
	// The rename is the commit; the directory sync makes it durable.
	if err := atomicfile.Sync(filepath.Dir(path)); err != nil {
		return driver.Errorf(errcode.ProviderUnavailable,
			"the migrated store is in place but its directory could not be synced (%s); the backup holds the original", driver.NewScrubber().Scrub(err.Error()))
	}
	return nil
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", migrationFailure("backup", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", migrationFailure("backup", err)
	}
	return driver.DigestPrefix + hex.EncodeToString(h.Sum(nil)), nil
}
