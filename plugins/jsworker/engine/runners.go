package engine

import "sync/atomic"

// A call's VM runs on a goroutine of its own (superviseWith says why), and
// goja's interpreter is deep: a new goroutine's stack grew by copying, a few
// times a call, every call (runtime.copystack was about a twentieth of a
// worker's CPU). So the goroutines that ran a call wait for the next one
// instead of exiting, their stacks already grown. They hold no JavaScript
// state: every call brings its own runtime, and a goroutine runs one
// function at a time. One that never returns (a VM stuck in a builtin, whose
// process is then discarded) is simply never reused.

// idleRunners holds the goroutines waiting for work, as the channel each
// receives its next function on. Past its capacity a runner exits.
var idleRunners = make(chan chan func(), 4)

// runnersStarted counts the runners started, for tests.
var runnersStarted atomic.Int64

// goRun runs f on an idle runner, or on a new one.
func goRun(f func()) {
	select {
	case work := <-idleRunners:
		work <- f
	default:
		runnersStarted.Add(1)
		go runner(f)
	}
}

func runner(f func()) {
	work := make(chan func())
	for {
		f()
		select {
		case idleRunners <- work:
		default:
			return
		}
		f = <-work
	}
}
