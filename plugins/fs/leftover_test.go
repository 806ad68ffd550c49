package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A crash can leave <journal>.json.tmp beside a begun journal. Before, the
// rollback of that journal wrote and renamed the same temporary file, and
// the listing then failed to remove it: the first resume after a kill -9
// failed fs_recover_failed. Now it is settled first, and a leftover gone
// by the time it is reached is settled.
func TestRecoverSettlesAJournalLeftoverBesideABegunJournal(t *testing.T) {
	root := crashWorkspace(t)
	before := snapshot(t, root)
	pc := changeContext(root)
	rec := crashMidBundle(t, root, pc)
	ref := journalLocation(filepath.Join(root, ".runx"), pc.RunID, pc.CallID)
	must(t, os.WriteFile(ref.Path+".tmp", []byte(`{"schema":"runx.fs_bundle_jo`), 0o600))
	var resp RecoverResponse
	mustOK(t, recoverInto(t, recoverContext(root), &resp))
	if len(resp.RolledBack) != 1 || resp.RolledBack[0].Journal.ID != rec.ID {
		t.Fatalf("got %+v", resp)
	}
	sameTree(t, before, snapshot(t, root))
	if _, err := os.Stat(ref.Path + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("the leftover is still there: %v", err)
	}
}

// leftoverOfCommit stands for a crash while a fully landed change was being
// recorded committed: the journal says begun, the leftover holds the whole
// committed record.
func leftoverOfCommit(t *testing.T, root string) (JournalRef, BundleRequest) {
	t.Helper()
	pc := changeContext(root)
	req := crashBundle()
	var resp BundleResponse
	mustOK(t, call(t, pc, CapabilityApplyBundle, req, &resp))
	committed := loadJournal(t, resp.Journal.Path)
	raw, err := json.Marshal(committed)
	must(t, err)
	begun := *committed
	begun.State, begun.EndedAt = JournalBegun, time.Time{}
	must(t, writeJournal(resp.Journal.Path, &begun))
	must(t, os.WriteFile(resp.Journal.Path+".tmp", raw, 0o600))
	return resp.Journal, req
}

// The leftover of a commit whose every file holds what the call wrote is
// the new content to finish: the change stands and its journal is
// committed, nothing rolled back.
func TestRecoverFinishesACommitTheLeftoverRecords(t *testing.T) {
	root := crashWorkspace(t)
	ref, _ := leftoverOfCommit(t, root)
	after := snapshot(t, root)
	var resp RecoverResponse
	mustOK(t, recoverInto(t, recoverContext(root), &resp))
	if len(resp.RolledBack) != 0 || resp.Committed != 1 {
		t.Fatalf("got %+v", resp)
	}
	sameTree(t, after, snapshot(t, root))
	if rec := loadJournal(t, ref.Path); rec.State != JournalCommitted {
		t.Fatalf("journal %s, want committed", rec.State)
	}
}

// The same leftover, once a file no longer holds what the call wrote, is
// garbage: removed, and the begun journal is settled as any other.
func TestRecoverRemovesALeftoverTheWorkspaceDoesNotMatch(t *testing.T) {
	root := crashWorkspace(t)
	ref, _ := leftoverOfCommit(t, root)
	must(t, os.WriteFile(filepath.Join(root, "b.txt"), []byte("changed since\n"), 0o644))
	var resp RecoverResponse
	mustOK(t, recoverInto(t, recoverContext(root), &resp))
	if len(resp.RolledBack) != 1 || resp.Committed != 0 {
		t.Fatalf("got %+v", resp)
	}
	if _, err := os.Stat(ref.Path + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("the leftover is still there: %v", err)
	}
	if rec := loadJournal(t, ref.Path); rec.State != JournalRolledBack {
		t.Fatalf("journal %s, want rolled_back", rec.State)
	}
}
