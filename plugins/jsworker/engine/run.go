package engine

import (
	"context"
	"errors"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// Call is one invocation of a module's default export.
type Call struct {
	// Input is the JSON object passed as the first argument.
	Input []byte
	// Environment holds the exact declared non-secret values, passed frozen
	// as { environment } in the second argument.
	Environment map[string]string
	// Clock is the run's fixed clock: Date.now() and new Date() return it.
	Clock time.Time
	// Seed seeds Math.random: one seed, one sequence, on every host.
	Seed int64
	// Timeout is the wall time allowed; zero means DefaultTimeout. It must
	// lie within [MinTimeout, MaxTimeout].
	Timeout time.Duration
}

// Result is a module's answer.
type Result struct {
	// Output is the JSON object the module returned (or its promise resolved
	// to), serialised with JSON.stringify's rules.
	Output []byte
}

// ErrNilProgram is returned by Run given no program: a caller bug, not a
// module failure.
var ErrNilProgram = errors.New("engine: nil program")

// Run calls the program's default export once, in a runtime of its own that
// is discarded afterwards. A module failure or refusal is an *Error; any
// other error is a caller bug. Run returns within the call's timeout plus a
// short grace even when the module does not yield (see Error.Discard), and a
// Go panic inside goja becomes module_crashed rather than reaching the
// caller.
func Run(ctx context.Context, p *Program, call Call) (Result, error) {
	timeout, err := admit(ctx, p, call)
	if err != nil {
		return Result{}, err
	}
	o, err := supervise(ctx, newInvocation(p, call), timeout)
	if err != nil {
		return Result{}, err
	}
	return Result{Output: o.output}, nil
}

// admit checks what a call can be refused for before any JavaScript runs,
// and returns the wall time it gets.
func admit(ctx context.Context, p *Program, call Call) (time.Duration, error) {
	if p == nil {
		return 0, ErrNilProgram
	}
	timeout := call.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout < MinTimeout || timeout > MaxTimeout {
		return 0, refuse(errcode.ModuleTimeoutInvalid, "the timeout %v is outside %v to %v", call.Timeout, MinTimeout, MaxTimeout)
	}
	if len(call.Input) > MaxInputBytes {
		return 0, refuse(errcode.ModuleInputTooLarge, "the input is %d bytes, more than %d", len(call.Input), MaxInputBytes)
	}
	if err := ctx.Err(); err != nil {
		return 0, refuse(errcode.ModuleCancelled, "the call was cancelled before the module ran: %v", err)
	}
	return timeout, nil
}

// supervise runs the invocation on its own goroutine and stops it on the
// first of: its answer, the deadline, the caller's cancellation, or the heap
// ceiling. The VM needs its own goroutine because goja checks for
// interrupts only between JavaScript instructions; a builtin looping over a
// huge array-like can ignore one for seconds, and Run must answer anyway.
func supervise(ctx context.Context, inv *invocation, timeout time.Duration) (outcome, error) {
	o, _, err := superviseMeasured(ctx, inv, timeout)
	return o, err
}

// superviseMeasured is supervise that also answers how much the heap grew
// while the call ran (garbage included: an over-estimate of what it keeps).
func superviseMeasured(ctx context.Context, inv *invocation, timeout time.Duration) (outcome, uint64, error) {
	heap := newHeapMeter()
	o, err := superviseWith(ctx, inv, timeout, heap)
	grown := heap.growthNow()
	refillSpare() // for the next call, once this one's heap is measured
	return o, grown, err
}

func superviseWith(ctx context.Context, inv *invocation, timeout time.Duration, heap *heapMeter) (outcome, error) {
	done := make(chan outcome, 1)
	goRun(func() { done <- inv.execute() })

	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(heapSampleInterval)
	defer tick.Stop()

	var reason *Error
	for reason == nil {
		select {
		case o := <-done:
			return finish(o, heap)
		case <-deadline.C:
			reason = fault(errcode.ModuleTimeout, "the module ran longer than %v", timeout)
		case <-ctx.Done():
			reason = refuse(errcode.ModuleCancelled, "the call was cancelled: %v", context.Cause(ctx))
		case <-tick.C:
			if grown, over := heap.poll(); over {
				reason = memoryExceeded(grown)
			}
		case grown := <-heap.confirmed:
			if heap.confirm(grown) {
				reason = memoryExceeded(grown)
			}
		}
	}
	select {
	case o := <-done: // it answered just as the limit fired: take the answer
		return finish(o, heap)
	default:
		return outcome{}, inv.stop(done, reason)
	}
}

// finish applies the after-the-fact heap check to a completed call: a spike
// between two samples is still caught.
func finish(o outcome, heap *heapMeter) (outcome, error) {
	if o.err != nil {
		return outcome{}, o.err
	}
	if grown, over := heap.final(); over {
		return outcome{}, memoryExceeded(grown)
	}
	return o, nil
}

func memoryExceeded(grown uint64) *Error {
	return fault(errcode.ModuleMemoryExceeded, "the module's heap grew by %d bytes, more than the %d-byte ceiling", grown, MaxHeapBytes)
}
