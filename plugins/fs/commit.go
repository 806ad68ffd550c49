package fs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// commitLockRetry is how often a change waiting on another polls the commit
// lock; changes hold it for milliseconds, so waiting is short.
const commitLockRetry = 2 * time.Millisecond

// syncWorkers bounds how many files or directories are synced (or closed,
// see digestHeld) at once. A sync waits on the disk rather than the CPU,
// and the disk serves concurrent requests together: staging a 100-file
// bundle on the CI disk took a median 93-164 ms one file at a time and
// 26-50 ms sixteen at a time.
const syncWorkers = 16

// testBeforeCheck lets a test change the workspace between a file's
// planning and its final check, the window the check exists for. It is nil
// outside tests.
var testBeforeCheck func(path string)

// changeBinding is the part of the kernel's binding a change needs.
type changeBinding struct {
	ProjectDir string `json:"project_dir"`
}

// projectDirOf reads the project directory the kernel names for journals.
// Without it no change can be journaled, and an unjournaled change could
// not be rolled back, so none is made.
func projectDirOf(call *plugin.Call) (string, *plugin.Result) {
	var b changeBinding
	if len(call.Context.Binding) > 0 {
		if err := json.Unmarshal(call.Context.Binding, &b); err != nil {
			return "", plugin.Refused(errcode.FSJournalUnavailable, "the call's binding is not a JSON object naming project_dir: "+err.Error())
		}
	}
	if b.ProjectDir == "" || !filepath.IsAbs(b.ProjectDir) {
		return "", plugin.Refused(errcode.FSJournalUnavailable, call.Capability+" needs an absolute project_dir in its binding to journal the change; the kernel passes .runx")
	}
	return filepath.Clean(b.ProjectDir), nil
}

// lockCommits takes the fs commit lock on the project: every change's
// digest checks and renames happen under it, so two changes to one file,
// from this process or another, can never both pass their check. The
// kernel's workspace lock serialises runs as well; this lock makes the
// guarantee the plugin's own, whoever calls it. The operating system drops
// it when the process dies, which is what lets a crashed bundle be rolled
// back.
func lockCommits(ctx context.Context, projectDir string) (func(), *plugin.Result) {
	dir := filepath.Join(projectDir, "journal")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, plugin.Failed(errcode.FSJournalFailed, fmt.Sprintf("cannot make the journal directory %s: %v", dir, err))
	}
	l := flock.New(filepath.Join(dir, "fs-commit.lock"))
	ok, err := l.TryLockContext(ctx, commitLockRetry)
	if !ok {
		if ctx.Err() != nil {
			return nil, plugin.Refused(errcode.FSCancelled, "the call was cancelled while waiting for another change to finish; nothing was changed")
		}
		return nil, plugin.Failed(errcode.FSJournalFailed, fmt.Sprintf("cannot take the fs commit lock: %v", err))
	}
	return func() { _ = l.Unlock() }, nil
}

// runChange carries out fs.write, fs.edit or fs.apply_bundle: under the
// commit lock it settles any journal this call left before, plans the
// change against the workspace as it is now, and commits it.
func runChange(ctx context.Context, call *plugin.Call, plan func(*Scope) (*changeSet, *plugin.Result), answer func(*journalRecord, JournalRef) any) *plugin.Result {
	projectDir, res := projectDirOf(call)
	if res != nil {
		return res
	}
	if call.Context.RunID == "" || call.Context.CallID == "" {
		return plugin.Refused(errcode.FSJournalUnavailable, call.Capability+" needs the run id and call id its journal entry is named by")
	}
	scope, res := NewScope(call.Context)
	if res != nil {
		return res
	}
	unlock, res := lockCommits(ctx, projectDir)
	if res != nil {
		return res
	}
	defer unlock()
	ref := journalLocation(projectDir, call.Context.RunID, call.Context.CallID)
	inputDigest := callDigest(call)
	prior, err := readJournal(ref.Path)
	if err != nil {
		return plugin.Failed(errcode.FSJournalFailed, fmt.Sprintf("cannot read the journal %s: %v", ref.Path, err))
	}
	if prior != nil {
		switch prior.State {
		case JournalCommitted:
			// The same call sent again: it already landed, so it answers
			// what it did rather than changing anything twice.
			if prior.InputDigest != inputDigest {
				return plugin.Refused(errcode.FSCallReused, fmt.Sprintf("call %s already committed a different change (journal %s); a call id names one change", call.Context.CallID, ref.ID))
			}
			return encode(answer(prior, ref))
		case JournalBegun:
			// Under the lock a begun journal is a dead writer's: put its
			// files back before this attempt starts from what they held.
			if res := settleBegun(ref, prior, timeOf(call)); res != nil {
				return res
			}
		}
	}
	cs, res := plan(scope)
	if res != nil {
		return res
	}
	if res := cs.outside(projectDir); res != nil {
		return res
	}
	rec, res := commit(call, ref, inputDigest, scope, cs)
	if res != nil {
		return res
	}
	return encode(answer(rec, ref))
}

// commit applies a planned change set whole or not at all. The journal is
// durable before the workspace is touched; each file's digest is checked
// again immediately before its rename; and any failure puts back what was
// done, so only a crash leaves a begun journal, for recovery (the Recover RPC).
func commit(call *plugin.Call, ref JournalRef, inputDigest string, scope *Scope, cs *changeSet) (*journalRecord, *plugin.Result) {
	rec := &journalRecord{
		Schema: JournalSchema, ID: ref.ID, State: JournalBegun, Capability: call.Capability,
		RunID: call.Context.RunID, CallID: call.Context.CallID, StepAddress: call.Context.StepAddress, Attempt: call.Context.Attempt,
		InputDigest: inputDigest, Workspace: scope.Workspace(), BegunAt: timeOf(call), CreatedDirs: cs.createdDirs,
	}
	for _, fc := range cs.files {
		if fc.op != OpDelete {
			fc.temp = stagePath(fc.target.Real)
		}
		rec.Files = append(rec.Files, journalFile{
			Path: fc.target.Display, Real: fc.target.Real, Op: fc.op, Existed: fc.existed,
			BeforeDigest: fc.beforeDigest, BeforeMode: fc.beforeMode, Before: fc.before,
			AfterDigest: fc.afterDigest, Replacements: fc.replacements, Temp: fc.temp,
		})
	}
	if err := writeJournal(ref.Path, rec); err != nil {
		return nil, plugin.Failed(errcode.FSJournalFailed, fmt.Sprintf("cannot write the journal %s, so nothing was changed: %v", ref.Path, err))
	}
	defer closeHeld(cs.files)
	landed := 0
	fail := func(res *plugin.Result) (*journalRecord, *plugin.Result) {
		return nil, abandon(ref, rec, landed, timeOf(call), res)
	}
	for _, d := range cs.createdDirs {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, iofs.ErrExist) {
			return fail(plugin.Failed(errcode.FSWriteFailed, fmt.Sprintf("cannot create the directory %s: %v", scope.DisplayPath(d), err)))
		}
	}
	if err := stageAll(cs.files); err != nil {
		return fail(plugin.Failed(errcode.FSWriteFailed, fmt.Sprintf("cannot stage the new content: %v", err)))
	}
	crashBetween := crashArmed(CrashBetweenRenames) && len(cs.files) > 1
	for i, fc := range cs.files {
		if testBeforeCheck != nil {
			testBeforeCheck(fc.target.Display)
		}
		if res := recheck(fc); res != nil {
			return fail(res)
		}
		if err := land(fc); err != nil {
			return fail(plugin.Failed(errcode.FSWriteFailed, fmt.Sprintf("cannot change %s: %v", fc.asked, err)))
		}
		landed++
		if i == 0 && crashBetween {
			crash()
		}
	}
	if err := syncParents(cs); err != nil {
		return fail(plugin.Failed(errcode.FSWriteFailed, fmt.Sprintf("cannot make the renames durable: %v", err)))
	}
	rec.State, rec.EndedAt = JournalCommitted, timeOf(call)
	if err := writeJournal(ref.Path, rec); err != nil {
		rec.State = JournalBegun
		return fail(plugin.Failed(errcode.FSJournalFailed, fmt.Sprintf("cannot mark the journal %s committed: %v", ref.Path, err)))
	}
	return rec, nil
}

// abandon rolls back a change that failed part way and reports why it
// failed. When even the rollback fails, the journal stays begun and
// recovery (the Recover RPC) finishes the job.
func abandon(ref JournalRef, rec *journalRecord, landed int, now time.Time, why *plugin.Result) *plugin.Result {
	report, err := rollBack(rec, landed)
	if err != nil {
		return plugin.Failed(errcode.FSWriteFailed, fmt.Sprintf("%s; putting the workspace back failed too (%v), so journal %s stays begun for recovery", why.Message, err, ref.ID))
	}
	rec.State, rec.EndedAt, rec.Rollback = JournalRolledBack, now, report
	// The workspace is already back; a journal left begun by a failed
	// write here would only be rolled back again, which changes nothing.
	_ = writeJournal(ref.Path, rec)
	out := *why
	out.Message = why.Message + "; nothing of this call was applied"
	if report.Conflicts > 0 {
		out.Message += fmt.Sprintf(", and %d file(s) changed outside runx were left as they are (journal %s)", report.Conflicts, ref.ID)
	}
	return &out
}

// settleBegun rolls back a begun journal found under the lock.
func settleBegun(ref JournalRef, rec *journalRecord, now time.Time) *plugin.Result {
	report, err := rollBack(rec, allLanded)
	if err != nil {
		return plugin.Failed(errcode.FSRecoverFailed, fmt.Sprintf("journal %s was left begun by an earlier attempt and cannot be rolled back: %v", ref.ID, err))
	}
	rec.State, rec.EndedAt, rec.Rollback = JournalRolledBack, now, report
	if err := writeJournal(ref.Path, rec); err != nil {
		return plugin.Failed(errcode.FSJournalFailed, fmt.Sprintf("cannot mark the journal %s rolled back: %v", ref.ID, err))
	}
	return nil
}

// stagePath names a temp file beside target, so its rename stays within
// one directory and so one filesystem.
func stagePath(target string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(filepath.Dir(target), ".runx-"+hex.EncodeToString(b[:])+".tmp")
}

// stageAll writes and syncs every new content to its temp file.
func stageAll(files []*fileChange) error {
	var staged []*fileChange
	for _, fc := range files {
		if fc.op != OpDelete {
			staged = append(staged, fc)
		}
	}
	return inParallel(len(staged), func(i int) error {
		if err := writeSynced(staged[i].temp, staged[i].after, staged[i].beforeMode, syscall.O_EXCL); err != nil {
			return fmt.Errorf("%s: %w", staged[i].asked, err)
		}
		return nil
	})
}

// inParallel runs do(0..n-1) on at most syncWorkers goroutines and returns
// the first error.
func inParallel(n int, do func(i int) error) error {
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range min(syncWorkers, n) {
		wg.Go(func() {
			for i := range next {
				if err := do(i); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

// recheck compares a file with what the plan read, immediately before it
// is replaced, and keeps it open (fc.held) until the change is settled.
func recheck(fc *fileChange) *plugin.Result {
	exists, digest, fd, err := digestHeld(fc.target.Real)
	fc.held = fd
	if err != nil {
		return plugin.Failed(errcode.FSReadFailed, fmt.Sprintf("cannot check %s before changing it: %v", fc.asked, err))
	}
	switch {
	case !fc.existed && exists:
		return plugin.Refused(errcode.FSCreateExists, fmt.Sprintf("%s was created by something else while this call was being applied", fc.asked))
	case fc.existed && !exists:
		return plugin.Refused(errcode.FSDigestMismatch, fmt.Sprintf("%s was removed while this call was being applied; it was expected to hold %s", fc.asked, fc.beforeDigest))
	case fc.existed && digest != fc.beforeDigest:
		return mismatch(fc.asked, fc.beforeDigest, digest)
	}
	return nil
}

// closeHeld closes the replaced files recheck kept open, a few at a time:
// their blocks are freed now.
func closeHeld(files []*fileChange) {
	_ = inParallel(len(files), func(i int) error {
		if fd := files[i].held; fd > 0 {
			files[i].held = -1
			return syscall.Close(fd)
		}
		return nil
	})
}

// land makes one change with one atomic step: a rename or an unlink.
func land(fc *fileChange) error {
	if fc.op == OpDelete {
		return os.Remove(fc.target.Real)
	}
	return os.Rename(fc.temp, fc.target.Real)
}

// syncParents makes every rename, unlink and new directory durable.
func syncParents(cs *changeSet) error {
	seen := map[string]bool{}
	var dirs []string
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, fc := range cs.files {
		add(filepath.Dir(fc.target.Real))
	}
	for _, d := range cs.createdDirs {
		add(filepath.Dir(d))
	}
	return inParallel(len(dirs), func(i int) error { return syncDir(dirs[i]) })
}

// callDigest binds a journal to the exact call that wrote it, so the same
// call id sent with other input is told apart from a resend.
func callDigest(call *plugin.Call) string {
	return DigestBytes(append([]byte(call.Capability+"\x00"), call.Input...))
}

// timeOf is the call's clock: the kernel's when it sends one (runx test runs
// on a fixed clock), otherwise now.
func timeOf(call *plugin.Call) time.Time {
	if !call.Context.Clock.IsZero() {
		return call.Context.Clock.UTC()
	}
	return time.Now().UTC()
}

func encode(out any) *plugin.Result {
	b, err := json.Marshal(out)
	if err != nil {
		return plugin.Failed(errcode.FSOutputInvalid, err.Error())
	}
	return plugin.OK(b, nil)
}
