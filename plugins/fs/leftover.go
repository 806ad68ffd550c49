package fs

import (
	"encoding/json"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A journal is replaced through <journal>.json.tmp (writeJournal), so a
// crash can leave that file beside its journal. Recovery settles it before
// the journal itself, from the records' digests:
//
//   - it is the new content to finish when it is a whole record of the same
//     call marking the change committed, the journal beside it is begun,
//     and every file holds what the record says the call wrote: the crash
//     fell after the last rename, while the commit was being recorded, so
//     the record is put in place and the change stands;
//   - anything else (cut short, another state, a workspace that does not
//     match) is garbage: no rename of it happened, so nothing it names was
//     touched by it, and it is removed.
//
// Settling a begun journal writes its own .json.tmp and renames it, so a
// leftover listed earlier may be gone by the time it is reached: a leftover
// that is already gone is settled.

// settleLeftover settles one <journal>.json.tmp and says whether it
// finished a commit.
func settleLeftover(tmp string) (finished bool, err error) {
	journal := strings.TrimSuffix(tmp, ".tmp")
	if leftoverCommits(tmp, journal) {
		if err := os.Rename(tmp, journal); err != nil {
			return false, err
		}
		return true, syncDir(filepath.Dir(journal))
	}
	if err := os.Remove(tmp); err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return false, err
	}
	return false, nil
}

// leftoverCommits says whether the record in tmp finishes the begun journal
// beside it, as settleLeftover describes.
func leftoverCommits(tmp, journal string) bool {
	raw, err := os.ReadFile(tmp)
	if err != nil {
		return false
	}
	var next journalRecord
	if json.Unmarshal(raw, &next) != nil || next.Schema != JournalSchema || next.State != JournalCommitted {
		return false
	}
	prior, err := readJournal(journal)
	if err != nil || prior == nil || prior.State != JournalBegun || prior.ID != next.ID ||
		prior.InputDigest != next.InputDigest || len(prior.Files) != len(next.Files) {
		return false
	}
	for i, f := range next.Files {
		p := prior.Files[i]
		if f.Real != p.Real || f.Op != p.Op || f.AfterDigest != p.AfterDigest {
			return false
		}
		exists, digest, err := digestAt(f.Real)
		if err != nil {
			return false
		}
		if f.Op == OpDelete {
			if exists {
				return false
			}
			continue
		}
		if !exists || digest != f.AfterDigest {
			return false
		}
	}
	return true
}
