//go:build linux

package journal

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
)

func openAt(t *testing.T, dir string) *Journal {
	t.Helper()
	j, err := Open(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// TestDriverHelperProcess is the other process of
// TestOneDriverAcrossProcesses: it claims a run, says so, and holds it
// until it is killed.
func TestDriverHelperProcess(t *testing.T) {
	dir, runID := os.Getenv("RUNX_DRIVER_HELPER_DIR"), os.Getenv("RUNX_DRIVER_HELPER_RUN")
	if dir == "" {
		t.Skip("run by TestOneDriverAcrossProcesses")
	}
	j := openAt(t, dir)
	if _, err := j.Drive(runID); err != nil {
		os.Stdout.WriteString("refused " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("held\n")
	select {} // until killed
}

// A run another process drives is refused here, another run is not, and
// the claim dies with its process: killed, the run is free at once.
func TestOneDriverAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	j := openAt(t, dir)
	child := exec.Command(os.Args[0], "-test.run", "^TestDriverHelperProcess$")
	child.Env = append(os.Environ(), "RUNX_DRIVER_HELPER_DIR="+dir, "RUNX_DRIVER_HELPER_RUN=run_x")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("helper: %q %v", line, err)
	}
	if _, err := j.Drive("run_x"); contract.CodeOf(err) != "run_driven_elsewhere" {
		t.Fatalf("a run another process drives: %v", err)
	}
	if j.Driven("run_x") != true {
		t.Fatal("Driven must report another process's claim")
	}
	other, err := j.Drive("run_y")
	if err != nil {
		t.Fatalf("another run is independent: %v", err)
	}
	other.Release()
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	d, err := j.Drive("run_x")
	if err != nil {
		t.Fatalf("a killed driver's run must be free: %v", err)
	}
	d.Release()
}

// Two journals open on one project exclude each other as two processes
// do; releasing one run keeps the others held; and driving runs leaves no
// file per run behind.
func TestDriverLocksAreOneFile(t *testing.T) {
	dir := t.TempDir()
	a, b := openAt(t, dir), openAt(t, dir)
	var held []*Driver
	for _, id := range []string{"run_1", "run_2", "run_3"} {
		d, err := a.Drive(id)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, d)
	}
	held[0].Release()
	held[0].Release() // twice is once
	if d, err := b.Drive("run_1"); err != nil {
		t.Fatalf("a released run: %v", err)
	} else {
		d.Release()
	}
	for _, id := range []string{"run_2", "run_3"} {
		if _, err := b.Drive(id); contract.CodeOf(err) != "run_driven_elsewhere" {
			t.Fatalf("%s, held by the other journal: %v", id, err)
		}
	}
	held[1].Release()
	held[2].Release()
	entries, err := os.ReadDir(filepath.Join(dir, "locks"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "runs.lock" {
		t.Fatalf("locks holds %v, want runs.lock alone", entries)
	}
}

// A claim still held when its journal closes lasts until it is released.
func TestDriverClaimOutlivesItsJournalsClose(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	b := openAt(t, dir)
	d, err := a.Drive("run_1")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Drive("run_1"); contract.CodeOf(err) != "run_driven_elsewhere" {
		t.Fatalf("a claim held across its journal's close: %v", err)
	}
	d.Release()
	again, err := b.Drive("run_1")
	if err != nil {
		t.Fatalf("released after the close: %v", err)
	}
	again.Release()
}
