package jsworker

import (
	"runtime"
	"sync"
	"sync/atomic"
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
// each item being the larger. On a machine with more cores the worker does
// not stay on one while calls run at once: see processors.
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
	most := runtime.GOMAXPROCS(workerProcs)
	scheduler.Store(&processors{set: runtime.GOMAXPROCS, base: workerProcs, most: most, now: workerProcs})
}

// scheduler is the serving process's processors; nil where SetupProcess
// never ran (the kernel reading Info, in-process tests), whose scheduler
// is not the worker's to change.
var scheduler atomic.Pointer[processors]

// processors gives the worker one processor while it runs one call and
// more while calls run at once. One is what a session of sequential calls
// wants (workerProcs); but a fan-out's items, or several sessions' calls,
// each run JavaScript on a goroutine of their own, and on a machine with
// more cores one processor would serialise them. So while more calls are
// in flight than processors, the worker takes as many as there are calls,
// up to what the process had before SetupProcess (the Go runtime's
// default: the cores, or the container's CPU limit), and goes back to
// workerProcs when no call is in flight. Changing GOMAXPROCS stops the
// world for a moment, so it changes only on those transitions, never per
// call of a sequential session.
type processors struct {
	set      func(int) int // runtime.GOMAXPROCS
	base     int
	most     int
	mu       sync.Mutex
	inFlight int
	now      int
}

// enter counts a call in and returns what counts it out.
func (p *processors) enter() func() {
	if p == nil {
		return func() {}
	}
	p.mu.Lock()
	p.inFlight++
	if p.inFlight > p.now && p.now < p.most {
		p.now = min(p.inFlight, p.most)
		p.set(p.now)
	}
	p.mu.Unlock()
	return p.leave
}

func (p *processors) leave() {
	p.mu.Lock()
	p.inFlight--
	if p.inFlight == 0 && p.now != p.base {
		p.now = p.base
		p.set(p.base)
	}
	p.mu.Unlock()
}
