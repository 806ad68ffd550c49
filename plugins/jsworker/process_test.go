package jsworker

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/plugin"
)

// setupWorkerProcess runs SetupProcess, as Serve does in a worker process,
// and restores the test process's zone, scheduler and collector afterwards.
func setupWorkerProcess(t testing.TB) {
	t.Helper()
	zone, procs := time.Local, runtime.GOMAXPROCS(0)
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	debug.SetGCPercent(percent)
	t.Cleanup(func() {
		time.Local = zone
		runtime.GOMAXPROCS(procs)
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
		scheduler.Store(nil)
	})
	New().SetupProcess()
}

// The kernel reads Info of its first-party plugins in its own process: doing
// so must not change that process's time zone. Only serving sets UTC.
func TestDescribingTheWorkerLeavesTheProcessAlone(t *testing.T) {
	saved, procs := time.Local, runtime.GOMAXPROCS(0)
	percent := debug.SetGCPercent(77)
	t.Cleanup(func() { time.Local = saved; debug.SetGCPercent(percent) })
	zone := time.FixedZone("test", 5*3600)
	time.Local = zone
	_ = New().Info()
	if time.Local != zone {
		t.Fatalf("New().Info() changed time.Local to %v", time.Local)
	}
	if got := debug.SetGCPercent(77); got != 77 {
		t.Fatalf("New().Info() changed GOGC to %d", got)
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Fatalf("New().Info() changed GOMAXPROCS to %d", got)
	}
	setupWorkerProcess(t)
	if time.Local != time.UTC {
		t.Fatalf("SetupProcess left time.Local %v, want UTC", time.Local)
	}
}

// Serving sets the worker's scheduler (process.go) and leaves its
// collector as the process had it.
func TestSetupProcessTunesTheWorker(t *testing.T) {
	percent := debug.SetGCPercent(100)
	setupWorkerProcess(t)
	if got := runtime.GOMAXPROCS(0); got != workerProcs {
		t.Errorf("GOMAXPROCS is %d, want %d", got, workerProcs)
	}
	if got := debug.SetGCPercent(percent); got != 100 {
		t.Errorf("SetupProcess changed GOGC to %d", got)
	}
}

// The heap ceiling holds in a process set up as a worker, where the
// watchdog shares one processor with the VM: a module that keeps what it
// allocates is stopped with module_memory_exceeded, and one that only
// churns garbage well past the ceiling, keeping little, finishes.
func TestHeapCeilingHoldsUnderTheWorkerSettings(t *testing.T) {
	setupWorkerProcess(t)
	module := func(body string) Request {
		return Request{Entry: "main.mjs", Input: json.RawMessage(`{}`), TimeoutMS: 20000, Files: map[string]string{
			"main.mjs": "export default function () {" + body + "}",
		}}
	}
	res := invoke(t, Capability, module(`const keep = []; for (let i = 0; ; i++) keep.push({ i, s: "item " + i })`))
	if res.Code != "module_memory_exceeded" {
		t.Fatalf("a module keeping everything it allocates: %s %s %s", res.Status, res.Code, res.Message)
	}
	// About 200 MB of short-lived strings, never more than a few KB live.
	res = invoke(t, Capability, module(`let n = 0; for (let i = 0; i < 200000; i++) { n += ("item " + i).repeat(64).length } return { n }`))
	if res.Status != plugin.StatusOK {
		t.Fatalf("a module churning garbage under the ceiling: %s %s %s", res.Status, res.Code, res.Message)
	}
}

// The worker runs one call on one processor and calls at once on as many
// as there are calls, up to what the process had; it changes GOMAXPROCS
// only when the count of calls crosses those bounds.
func TestProcessorsFollowCallsAtOnce(t *testing.T) {
	var sets []int
	p := &processors{set: func(n int) int { sets = append(sets, n); return 0 }, base: 1, most: 4, now: 1}
	var leaves []func()
	step := func(enter bool, wantNow int) {
		t.Helper()
		if enter {
			leaves = append(leaves, p.enter())
		} else {
			leaves[len(leaves)-1]()
			leaves = leaves[:len(leaves)-1]
		}
		if p.now != wantNow {
			t.Fatalf("after %d calls in flight, %d processors; want %d", p.inFlight, p.now, wantNow)
		}
	}
	step(true, 1) // a sequential session's call changes nothing
	step(false, 1)
	step(true, 1)
	step(true, 2)
	step(true, 3)
	step(true, 4)
	step(true, 4) // never more than the process had
	step(false, 4)
	step(false, 4)
	step(false, 4)
	step(false, 4)
	step(false, 1) // idle: back to one
	if want := []int{2, 3, 4, 1}; fmt.Sprint(sets) != fmt.Sprint(want) {
		t.Fatalf("GOMAXPROCS set to %v, want %v", sets, want)
	}
	var none *processors
	none.enter()() // a process never set up as a worker keeps its scheduler
}

// Serving records what the process had, so calls at once get the machine.
func TestSetupProcessKeepsTheMachinesProcessors(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	setupWorkerProcess(t)
	p := scheduler.Load()
	if p == nil || p.most != procs || p.base != workerProcs || p.now != workerProcs {
		t.Fatalf("scheduler after SetupProcess: %+v, want most %d, base and now %d", p, procs, workerProcs)
	}
	done := p.enter()
	second := p.enter()
	if procs > 1 && runtime.GOMAXPROCS(0) != 2 {
		t.Errorf("two calls at once run on %d processors, want 2", runtime.GOMAXPROCS(0))
	}
	second()
	done()
	if got := runtime.GOMAXPROCS(0); got != workerProcs {
		t.Errorf("idle worker on %d processors, want %d", got, workerProcs)
	}
}
