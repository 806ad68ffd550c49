package journal

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
)

// syncLog records every call of datasync while a test runs.
type syncLog struct {
	calls []syncCall
	fail  error // returned for the WAL when set
}

type syncCall struct {
	name    string   // the file synced
	file    *os.File // the descriptor synced
	current bool     // it was the file at its path when synced
	inUse   int      // the journal's connections in use at the time
}

// countSyncs replaces datasync for the test: each call is recorded, with
// whether the descriptor was the file then at its path and how many of
// the journal's connections were held, and then really synced.
func countSyncs(t *testing.T, j *Journal) *syncLog {
	t.Helper()
	log := &syncLog{}
	real := datasync
	datasync = func(f *os.File) error {
		c := syncCall{name: f.Name(), file: f}
		if fi, err := f.Stat(); err == nil {
			if now, err := os.Stat(f.Name()); err == nil {
				c.current = os.SameFile(fi, now)
			}
		}
		c.inUse = j.db.Stats().InUse
		log.calls = append(log.calls, c)
		if log.fail != nil && filepath.Ext(f.Name()) == ".sqlite-wal" {
			return log.fail
		}
		return real(f)
	}
	t.Cleanup(func() { datasync = real })
	return log
}

// wal is how many times j's WAL was synced so far.
func (l *syncLog) wal(j *Journal) int {
	return len(l.of(j.wal.path))
}

func (l *syncLog) of(name string) []syncCall {
	var out []syncCall
	for _, c := range l.calls {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

func createRun(j *Journal, ctx context.Context, id string) error {
	return j.CreateRun(ctx, &Run{RunID: id, SkillName: "s", Method: "m", PackageDir: "/p", PackageDigest: "sha256:p", ClosureDigest: "sha256:c",
		Authority: []byte(`{}`), Inputs: []byte(`{}`)})
}

// A deferred transaction pays no sync; a durable one exactly one, of
// state.sqlite-wal, made while the transaction still holds the journal's
// connection (so the WAL at the path is the one it committed to); the
// first also syncs the directory once, as SQLite does at a new WAL's
// first sync. A rollback syncs nothing.
func TestDurableTransitionsSyncTheWALOnce(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	syncs := countSyncs(t, j)
	if err := createRun(j, Deferred(ctx), "r1"); err != nil {
		t.Fatal(err)
	}
	if err := j.ReceiptLog().ForgetLoggedFiles(ctx, "/store", 1); err != nil { // deferred whatever its context
		t.Fatal(err)
	}
	if len(syncs.calls) != 0 {
		t.Fatalf("deferred transactions synced %+v", syncs.calls)
	}
	if err := createRun(j, ctx, "r2"); err != nil {
		t.Fatal(err)
	}
	wal := syncs.of(j.wal.path)
	if len(wal) != 1 || !wal[0].current || wal[0].inUse != 1 {
		t.Fatalf("a durable transaction's WAL syncs: %+v, want one of the current file with its connection held", wal)
	}
	if dir := syncs.of(j.dir); len(dir) != 1 {
		t.Errorf("the directory of a newly opened WAL synced %d times, want 1", len(dir))
	}
	if len(syncs.calls) != 2 {
		t.Errorf("syncs: %+v", syncs.calls)
	}
	syncs.calls = nil
	if err := j.RecordStep(ctx, &Step{RunID: "r2", Address: "a", StepID: "a", Status: "success", Output: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if len(syncs.calls) != 1 || syncs.calls[0].name != j.wal.path {
		t.Errorf("a second durable transaction synced %+v, want the WAL once", syncs.calls)
	}
	syncs.calls = nil
	if err := j.tx(ctx, func(*sql.Tx) error { return errors.New("rolled back") }); err == nil {
		t.Fatal("rolled back")
	}
	if len(syncs.calls) != 0 {
		t.Errorf("a rollback synced %+v", syncs.calls)
	}
}

// SQLite deletes the WAL when the database's last connection closes and
// makes a new one at the next open: the journal then syncs the new file,
// never the descriptor it held on the deleted one, and closes that.
func TestWALMadeAgainIsSyncedNotTheOldOne(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	syncs := countSyncs(t, j)
	if err := createRun(j, ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	first := syncs.of(j.wal.path)[0].file
	// Another connection that closes while the journal's is open is not
	// the last: the WAL the journal holds stays (what makes the check
	// under a held connection free of races).
	other, err := sql.Open("sqlite", "file:"+filepath.Join(j.dir, "state.sqlite")+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(`UPDATE runs SET updated_at = updated_at`); err != nil {
		t.Fatal(err)
	}
	other.Close()
	if now, err := os.Stat(j.wal.path); err != nil || !os.SameFile(now, j.wal.fi) {
		t.Fatalf("another connection's close replaced the WAL: %v", err)
	}
	// No idle connection kept: the next transaction's connection is the
	// last one and closes when it is given back, deleting the WAL.
	j.db.SetMaxIdleConns(0)
	if err := createRun(j, ctx, "r2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.wal.path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the WAL outlived its last connection: %v", err)
	}
	j.db.SetMaxIdleConns(1)
	syncs.calls = nil
	if err := createRun(j, ctx, "r3"); err != nil {
		t.Fatal(err)
	}
	wal := syncs.of(j.wal.path)
	if len(wal) != 1 || !wal[0].current || wal[0].file == first {
		t.Fatalf("after the WAL was made again: %+v, want one sync of the new file", wal)
	}
	if dir := syncs.of(j.dir); len(dir) != 1 {
		t.Errorf("the new WAL's directory synced %d times, want 1", len(dir))
	}
	if _, err := first.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the descriptor on the deleted WAL is still open: %v", err)
	}
	for _, id := range []string{"r1", "r2", "r3"} {
		if _, err := j.GetRun(ctx, id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// recordingSource is a FileSource with one unflushed file that records
// whether the journal told it the file was logged.
type recordingSource struct{ logged int }

func (s *recordingSource) Unlogged() []ReceiptFile {
	return []ReceiptFile{{Name: "a.json", Bytes: []byte(`{}`)}}
}
func (s *recordingSource) Logged(files []ReceiptFile) { s.logged += len(files) }

// A failed sync of the WAL is never retried: the transaction that made it
// returns state_sync_failed (its commit is visible, not known durable, so
// its receipt files are not reported logged), and every later write
// transaction, deferred or durable, is refused with the same code without
// another sync. Reads go on.
func TestFailedWALSyncRefusesFurtherWrites(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	src := &recordingSource{}
	j.ReceiptLog().LogFiles("/store", "1:1", src)
	syncs := countSyncs(t, j)
	syncs.fail = syscall.EIO
	err := createRun(j, ctx, "r1")
	if contract.CodeOf(err) != "state_sync_failed" || !errors.Is(err, syscall.EIO) {
		t.Fatalf("a failed WAL sync: %v, want state_sync_failed wrapping EIO", err)
	}
	if src.logged != 0 {
		t.Errorf("files of a transaction not known durable were reported logged")
	}
	if r, err := j.GetRun(ctx, "r1"); err != nil || r.RunID != "r1" {
		t.Errorf("the committed run is visible: %+v %v", r, err)
	}
	tried := len(syncs.calls)
	for name, c := range map[string]context.Context{"durable": ctx, "deferred": Deferred(ctx)} {
		if err := createRun(j, c, "r-"+name); contract.CodeOf(err) != "state_sync_failed" {
			t.Errorf("a %s write after a failed sync: %v, want state_sync_failed", name, err)
		}
		if _, err := j.GetRun(ctx, "r-"+name); !errors.Is(err, ErrRunNotFound) {
			t.Errorf("a refused %s write was committed: %v", name, err)
		}
	}
	if len(syncs.calls) != tried {
		t.Errorf("a failed sync was retried: %+v", syncs.calls[tried:])
	}
}

// A database SQLite cannot put in WAL mode is refused at open: at
// synchronous=NORMAL a rollback journal's commits would not be durable.
func TestNoWALRefused(t *testing.T) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := requireWAL(db, ":memory:"); contract.CodeOf(err) != "state_wal_unavailable" {
		t.Fatalf("got %v, want state_wal_unavailable", err)
	}
}
