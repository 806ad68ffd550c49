package jsworker

import (
	"runtime"
	"runtime/debug"
	"time"
)

// workerGCPercent is the worker process's GOGC. A call of a small module
// allocates about 100 KiB (a fresh runtime and its builtins) over a live
// heap of a few MB, so at the default 100 the collector ran every few dozen
// calls and its mark workers woke the idle processor each time.
const workerGCPercent = 400

// workerMemoryLimit keeps workerGCPercent from scaling a large live heap:
// the program cache may hold 64 MiB of bundled JavaScript, compiled to a few
// times that, and at GOGC=400 the heap would grow to five times it before a
// collection. Past this soft limit the collector runs as often as the
// default would, or more. A call's own heap is bounded apart from both, by
// the engine's watchdog (engine.MaxHeapBytes), which decides on live bytes
// and forces a collection when a sample is over the ceiling.
const workerMemoryLimit = 512 << 20

// workerProcs is the worker's GOMAXPROCS. A module runs on one goroutine at
// a time (its supervisor only waits), and the gRPC reads and writes around
// it are short, so a second processor bought no parallelism worth having;
// what it cost was wake-ups: every goroutine the call readied woke an idle
// thread to steal it, which found nothing, and slept again, about ten
// context switches per call (PERFORMANCE.md, "JS worker process"). The
// watchdog still stops a module that never yields: Go preempts a running
// goroutine after 10 ms, so the supervisor runs on time. Calls at once (a
// fan-out's items) share the processor; a 1,000-item fan-out at
// concurrency 8 was no slower (BenchmarkFanOut1000's workload, 1.3-1.8 s
// against 1.5-2.7 s before, on a loaded machine), the kernel's side of
// each item being the larger.
const workerProcs = 1

// SetupProcess prepares the serving process; sdk's Serve calls it before
// serving, never the kernel, which reads Info in its own process.
//
// The local zone becomes UTC: goja's local-time Date methods (getHours,
// toString, ...) read time.Local, and a module must see the same dates on
// every host. The worker process runs nothing else that could want the
// host's zone.
//
// The scheduler and collector are set for the worker's load, short calls
// of small modules (workerProcs, workerGCPercent, workerMemoryLimit).
// The kernel passes the worker no GOGC or GOMAXPROCS (kernel/host's
// environment allowlist), so these are the worker's, not the host's.
func (*Plugin) SetupProcess() {
	time.Local = time.UTC
	runtime.GOMAXPROCS(workerProcs)
	debug.SetGCPercent(workerGCPercent)
	debug.SetMemoryLimit(workerMemoryLimit)
}
