package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// crashBundle is four changes of every kind: after the first rename the
// workspace holds one of them.
func crashBundle() BundleRequest {
	return BundleRequest{Changes: []BundleChange{
		{Path: "a.txt", Content: str("A\n"), ExpectedDigest: digest("a\n")},
		{Path: "new/dir/c.txt", Content: str("C\n"), Create: true},
		{Path: "gone.txt", ExpectedDigest: digest("g\n")},
		{Path: "b.txt", Content: str("B\n"), ExpectedDigest: digest("b\n")},
	}}
}

func crashWorkspace(t *testing.T) string {
	root := workspace(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n"})
	must(t, os.Chmod(filepath.Join(root, "a.txt"), 0o600))
	return root
}

// crashMidBundle runs the bundle in a child process that dies right after
// its first rename, and checks it died there.
func crashMidBundle(t *testing.T, root string, pc plugin.Context) *journalRecord {
	t.Helper()
	code, _ := runChild(t, CapabilityApplyBundle, pc, crashBundle(), CrashEnv+"="+CrashBetweenRenames)
	if code != crashExitCode {
		t.Fatalf("the plugin process exited %d, want %d", code, crashExitCode)
	}
	if readFile(t, filepath.Join(root, "a.txt")) != "A\n" || readFile(t, filepath.Join(root, "b.txt")) != "b\n" {
		t.Fatal("the crash did not fall between the first and second rename")
	}
	rec := loadJournal(t, journalLocation(filepath.Join(root, ".runx"), pc.RunID, pc.CallID).Path)
	if rec.State != JournalBegun || len(rec.CreatedDirs) != 2 {
		t.Fatalf("journal after the crash: %+v", rec)
	}
	if _, err := os.Stat(rec.Files[3].Temp); err != nil {
		t.Fatalf("b.txt's staged content should still be there: %v", err)
	}
	return rec
}

func recoverContext(root string) plugin.Context {
	pc := changeContext(root)
	pc.RunID, pc.CallID = "run-1", "run-1#recover"
	return pc
}

func TestBundleKilledBetweenRenamesIsRolledBackWhole(t *testing.T) {
	root := crashWorkspace(t)
	before := snapshot(t, root)
	pc := changeContext(root)
	crashMidBundle(t, root, pc)

	// The run's next driver recovers it, in another plugin process.
	code, res := runChild(t, childRecover, recoverContext(root), nil)
	if code != 0 || res.Status != plugin.StatusOK {
		t.Fatalf("recover exited %d: %+v", code, res)
	}
	var resp RecoverResponse
	must(t, json.Unmarshal(res.Output, &resp))
	if len(resp.RolledBack) != 1 || resp.Committed != 0 {
		t.Fatalf("got %+v", resp)
	}
	report := resp.RolledBack[0].Report
	wantActions := []string{RollbackRestored, RollbackUnchanged, RollbackUnchanged, RollbackUnchanged}
	for i, f := range report.Files {
		if f.Action != wantActions[i] {
			t.Errorf("%s: %s, want %s", f.Path, f.Action, wantActions[i])
		}
	}
	if len(report.RemovedDirs) != 2 || report.RemovedDirs[0] != "new/dir" || len(report.RemovedTemps) != 2 || report.Conflicts != 0 {
		t.Fatalf("report %+v", report)
	}
	sameTree(t, before, snapshot(t, root))
	rec := loadJournal(t, resp.RolledBack[0].Journal.Path)
	if rec.State != JournalRolledBack || rec.Rollback == nil {
		t.Fatalf("journal %+v", rec)
	}

	// Recovering again finds nothing to do and changes nothing.
	var again RecoverResponse
	mustOK(t, recoverInto(t, recoverContext(root), &again))
	if len(again.RolledBack) != 0 || again.AlreadyRolledBack != 1 {
		t.Fatalf("got %+v", again)
	}
	sameTree(t, before, snapshot(t, root))
}

func TestCrashHookFiresOnlyBetweenRenamesOfABundle(t *testing.T) {
	root := crashWorkspace(t)
	env := CrashEnv + "=" + CrashBetweenRenames
	// One file has no "between": the hook must not fire.
	code, res := runChild(t, CapabilityWrite, changeContext(root), WriteRequest{Path: "one.txt", Content: str("1")}, env)
	if code != 0 || res.Status != plugin.StatusOK {
		t.Fatalf("exit %d: %+v", code, res)
	}
	// Without the variable the same bundle lands whole in a child process.
	code, res = runChild(t, CapabilityApplyBundle, changeContext(root), crashBundle())
	if code != 0 || res.Status != plugin.StatusOK {
		t.Fatalf("exit %d: %+v", code, res)
	}
	if readFile(t, filepath.Join(root, "b.txt")) != "B\n" || readFile(t, filepath.Join(root, "new/dir/c.txt")) != "C\n" {
		t.Fatal("bundle did not land")
	}
}

func TestCallSentAfterACrashStartsAgainFromThePriorState(t *testing.T) {
	root := crashWorkspace(t)
	pc := changeContext(root)
	crashMidBundle(t, root, pc)
	// The kernel resends the same call (a journaled change is safe to
	// resend): its begun journal is rolled back, then the bundle applies.
	var resp BundleResponse
	mustOK(t, call(t, pc, CapabilityApplyBundle, crashBundle(), &resp))
	if resp.Files[0].BeforeDigest != digest("a\n") {
		t.Fatalf("the resend did not start from the prior state: %+v", resp.Files[0])
	}
	sameTree(t, map[string]string{
		"a.txt": "-rw------- A\n", "b.txt": "-rw-r--r-- B\n", "new/": "", "new/dir/": "", "new/dir/c.txt": "-rw-r--r-- C\n",
	}, snapshot(t, root))
	if rec := loadJournal(t, resp.Journal.Path); rec.State != JournalCommitted {
		t.Fatalf("journal %s", rec.State)
	}
}

func TestRecoverLeavesWhatChangedSinceTheCrash(t *testing.T) {
	root := crashWorkspace(t)
	crashMidBundle(t, root, changeContext(root))
	// A person edits a.txt (which the bundle replaced) and drops a file
	// into a directory the bundle created, before the run is recovered.
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("mine\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "new/dir/notes.txt"), []byte("n"), 0o644))
	var resp RecoverResponse
	mustOK(t, recoverInto(t, recoverContext(root), &resp))
	report := resp.RolledBack[0].Report
	if report.Conflicts != 1 || report.Files[0].Action != RollbackConflict || report.Files[0].Digest != digest("mine\n") ||
		len(report.KeptDirs) != 2 || len(report.RemovedDirs) != 0 {
		t.Fatalf("report %+v", report)
	}
	sameTree(t, map[string]string{
		"a.txt": "-rw------- mine\n", "b.txt": "-rw-r--r-- b\n", "gone.txt": "-rw-r--r-- g\n",
		"new/": "", "new/dir/": "", "new/dir/notes.txt": "-rw-r--r-- n",
	}, snapshot(t, root))
}

func TestRecoverRemovesAJournalACrashCutShort(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a"})
	dir := journalDir(filepath.Join(root, ".runx"), "run-1")
	must(t, os.MkdirAll(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "half.json.tmp"), []byte(`{"sche`), 0o600))
	var resp RecoverResponse
	mustOK(t, recoverInto(t, recoverContext(root), &resp))
	if _, err := os.Stat(filepath.Join(dir, "half.json.tmp")); !os.IsNotExist(err) {
		t.Fatal("the cut-short journal is still there")
	}
	// A run with no journals at all recovers to nothing.
	never := recoverContext(root)
	never.RunID = "never-ran"
	mustOK(t, recoverInto(t, never, &resp))
	if resp.RunID != "never-ran" || len(resp.RolledBack) != 0 {
		t.Fatalf("got %+v", resp)
	}
}

func TestRecoverRefusals(t *testing.T) {
	root := workspace(t, nil)
	pc := recoverContext(root)
	pc.RunID = ""
	wantCode(t, recoverInto(t, pc, nil), errcode.FSRequestInvalid)
	pc.Binding, pc.RunID = nil, "r"
	wantCode(t, recoverInto(t, pc, nil), errcode.FSJournalUnavailable)

	dir := journalDir(filepath.Join(root, ".runx"), "run-1")
	must(t, os.MkdirAll(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"schema":"something.else"}`), 0o600))
	res := recoverInto(t, recoverContext(root), nil)
	if res.Status != plugin.StatusFailed || res.Code != errcode.FSRecoverFailed {
		t.Fatalf("got %+v", res)
	}
}

// recoverInto asks the plugin, over gRPC, to recover pc's run, and decodes
// an ok answer into out.
func recoverInto(t *testing.T, pc plugin.Context, out *RecoverResponse) *plugin.Result {
	t.Helper()
	res := recoverOver(t, CapabilityApplyBundle, pc)
	if res.Status == plugin.StatusOK && out != nil {
		must(t, json.Unmarshal(res.Output, out))
	}
	return res
}

func TestSafeNames(t *testing.T) {
	seen := map[string]string{}
	for _, id := range []string{"run-1", "r1#step/0@1", "r1#step_0@1", "r1#step/0_1", ".", "..", ".hidden", "a/../../b", string(make([]byte, 300))} {
		name := safeName(id)
		if name == "" || name == "." || name == ".." || filepath.Base(name) != name || len(name) > 100 || name[0] == '.' {
			t.Errorf("%q became unsafe name %q", id, name)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("%q and %q share %q", id, other, name)
		}
		seen[name] = id
	}
	if safeName("run-1") != "run-1" {
		t.Error("a safe id should name itself")
	}
}
