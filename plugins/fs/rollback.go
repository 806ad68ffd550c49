package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// What a rollback did to one file.
const (
	RollbackRestored  = "restored"  // its prior bytes are back
	RollbackRemoved   = "removed"   // the call created it; it is gone
	RollbackUnchanged = "unchanged" // the call had not reached it
	// RollbackConflict: it holds neither what the call found nor what the
	// call wrote, so something outside runx changed it after the crash;
	// it is left as it is rather than destroying that work.
	RollbackConflict = "conflict"
)

// RecoverResponse is what the Recover RPC answers: each begun journal of the run it
// rolled back, and how many journals needed nothing.
type RecoverResponse struct {
	RunID             string             `json:"run_id"`
	RolledBack        []RecoveredJournal `json:"rolled_back"`
	Committed         int                `json:"committed"`
	AlreadyRolledBack int                `json:"already_rolled_back"`
}

// RecoveredJournal is one journal recovery rolled back.
type RecoveredJournal struct {
	Journal    JournalRef     `json:"journal"`
	Capability string         `json:"capability"`
	CallID     string         `json:"call_id"`
	Report     RollbackReport `json:"report"`
}

// RollbackReport says what putting a change back did.
type RollbackReport struct {
	Files        []RolledBackFile `json:"files"`
	RemovedDirs  []string         `json:"removed_dirs,omitempty"`
	KeptDirs     []string         `json:"kept_dirs,omitempty"`
	RemovedTemps []string         `json:"removed_temps,omitempty"`
	Conflicts    int              `json:"conflicts"`
}

// RolledBackFile is one file of a rollback. Digest is what a conflicting
// file holds.
type RolledBackFile struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	Digest string `json:"digest,omitempty"`
}

// allLanded tells rollBack that any file may have been changed: after a
// crash, nothing but the files themselves says how far a bundle got.
const allLanded = -1

// rollBack puts the files a journal names back as they were, removes what
// the call created (files, stray temp files, then its directories when
// they are empty) and syncs it all. It decides each file from what the
// file holds now, so running it twice is running it once. landed, when
// known, is how many files (in order) the call changed; the rest are left
// alone even if they happen to hold what the call would have written.
func rollBack(rec *journalRecord, landed int) (*RollbackReport, error) {
	report := &RollbackReport{Files: []RolledBackFile{}}
	dirs := map[string]bool{}
	for i := len(rec.Files) - 1; i >= 0; i-- {
		f := rec.Files[i]
		action, digest, err := RollbackUnchanged, "", error(nil)
		if landed == allLanded || i < landed {
			action, digest, err = rollBackFile(&f)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		if action == RollbackConflict {
			report.Conflicts++
		}
		report.Files = append(report.Files, RolledBackFile{Path: f.Path, Action: action, Digest: digest})
		if f.Temp != "" {
			switch err := os.Remove(f.Temp); {
			case err == nil:
				report.RemovedTemps = append(report.RemovedTemps, rec.display(f.Temp))
			case !errors.Is(err, iofs.ErrNotExist):
				return nil, fmt.Errorf("removing %s: %w", f.Temp, err)
			}
		}
		dirs[filepath.Dir(f.Real)] = true
	}
	slices.Reverse(report.Files)
	for i := len(rec.CreatedDirs) - 1; i >= 0; i-- {
		d := rec.CreatedDirs[i]
		switch err := os.Remove(d); {
		case err == nil:
			report.RemovedDirs = append(report.RemovedDirs, rec.display(d))
			dirs[filepath.Dir(d)] = true
		case errors.Is(err, iofs.ErrNotExist):
		default:
			// Something else now lives there; the directory stays.
			report.KeptDirs = append(report.KeptDirs, rec.display(d))
		}
	}
	for d := range dirs {
		if err := syncDir(d); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return nil, err
		}
	}
	return report, nil
}

func rollBackFile(f *journalFile) (action, digest string, err error) {
	exists, digest, err := digestAt(f.Real)
	if err != nil {
		return "", "", err
	}
	switch {
	case f.Existed && exists && digest == f.BeforeDigest:
		return RollbackUnchanged, "", nil
	case f.Existed && (!exists || digest == f.AfterDigest):
		return RollbackRestored, "", restore(f)
	case !f.Existed && !exists:
		return RollbackUnchanged, "", nil
	case !f.Existed && digest == f.AfterDigest:
		return RollbackRemoved, "", os.Remove(f.Real)
	}
	return RollbackConflict, digest, nil
}

// restore puts a file's prior bytes and mode back with one rename.
func restore(f *journalFile) error {
	if err := os.MkdirAll(filepath.Dir(f.Real), 0o755); err != nil {
		return err
	}
	if DigestBytes(f.Before) != f.BeforeDigest {
		return fmt.Errorf("the journal's prior bytes do not match its digest %s", f.BeforeDigest)
	}
	tmp := stagePath(f.Real)
	if err := writeSynced(tmp, f.Before, f.BeforeMode, syscall.O_EXCL); err != nil {
		return err
	}
	if err := os.Rename(tmp, f.Real); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

func (rec *journalRecord) display(p string) string {
	if rec.Workspace != "" && within(rec.Workspace, p) {
		return slashRel(rec.Workspace, p)
	}
	return p
}

// recoverRun answers the Recover RPC: it rolls back every begun journal of
// the call's run. The
// kernel calls it when a run's next driver starts and when a run is closed,
// so a bundle a crash interrupted is applied whole or not at all. It takes
// the commit lock, so it never rolls back a change still being applied.
func recoverRun(ctx context.Context, call *plugin.Call) *plugin.Result {
	projectDir, res := projectDirOf(call)
	if res != nil {
		return res
	}
	runID := call.Context.RunID
	if runID == "" {
		return plugin.Refused(errcode.FSRequestInvalid, "recovery needs the run whose changes it settles")
	}
	unlock, res := lockCommits(ctx, projectDir)
	if res != nil {
		return res
	}
	defer unlock()
	resp := &RecoverResponse{RunID: runID, RolledBack: []RecoveredJournal{}}
	dir := journalDir(projectDir, runID)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, iofs.ErrNotExist) {
		return encode(resp)
	}
	if err != nil {
		return plugin.Failed(errcode.FSRecoverFailed, fmt.Sprintf("cannot list the journals of run %s: %v", runID, err))
	}
	var failures []string
	// A journal write a crash cut short is settled first (leftover.go):
	// it may finish the commit its journal was recording.
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".json.tmp") {
			if _, err := settleLeftover(filepath.Join(dir, name)); err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v", name, err))
			}
		}
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		rec, err := readJournal(path)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		ref := JournalRef{ID: rec.ID, Path: path}
		switch rec.State {
		case JournalCommitted:
			resp.Committed++
		case JournalRolledBack:
			resp.AlreadyRolledBack++
		case JournalBegun:
			if res := settleBegun(ref, rec, timeOf(call)); res != nil {
				failures = append(failures, res.Message)
				continue
			}
			resp.RolledBack = append(resp.RolledBack, RecoveredJournal{Journal: ref, Capability: rec.Capability, CallID: rec.CallID, Report: *rec.Rollback})
		default:
			failures = append(failures, fmt.Sprintf("%s: unknown state %q", name, rec.State))
		}
	}
	if len(failures) > 0 {
		return plugin.Failed(errcode.FSRecoverFailed, fmt.Sprintf("run %s: %d journal(s) could not be settled (%s); %d rolled back", runID, len(failures), strings.Join(failures, "; "), len(resp.RolledBack)))
	}
	return encode(resp)
}
