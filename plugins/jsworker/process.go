package jsworker

import (
	"runtime"
	"time"
)

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
// The scheduler is set for the worker's load, short calls of small modules
// (workerProcs). The kernel passes the worker no GOMAXPROCS (kernel/host's
// environment allowlist), so this is the worker's, not the host's.
//
// The collector keeps its default. GOGC=400 (the MCP server's setting) was
// tried and taken out: it cut the collector's runs in a long session, but a
// session's first hundred calls cost more, since a heap allowed to grow
// five times over is new memory, and each new page a fault (worker CPU over
// the first 99 calls of a session, 1.5-2.1 ms a call against 0.9-1.1 ms at
// the default; PERFORMANCE.md, "JS worker process").
func (*Plugin) SetupProcess() {
	time.Local = time.UTC
	runtime.GOMAXPROCS(workerProcs)
}
