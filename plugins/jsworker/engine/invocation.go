package engine

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/runxhq/runx/sdk/errcode"
)

// invocation is one call of one program: its own runtime, used once.
type invocation struct {
	prog *Program
	call Call
	// rt is created (or taken from the spare) on the caller's goroutine so
	// that stop can interrupt it without a data race; everything else
	// touches it only from execute.
	rt *goja.Runtime
	// spare is rt prepared ahead (spare.go); nil when execute prepares it.
	spare *prepared
	// limit is the first limit the VM's own goroutine enforced (a guarded
	// builtin, the job budget). It outranks whatever error the unwinding VM
	// then reports: a refused typed array constructor, for one, surfaces
	// first as a TypeError from goja.
	limit *Error
	// halted is set by stop before it interrupts the VM, for the Go loops
	// that serialise the output: they run no JavaScript instructions, so
	// they would not notice the interrupt.
	halted atomic.Bool
	// script is the replay state of a RunScript invocation; nil for Run.
	script *scriptState
	// resume, when set, is what execute runs instead of the module: the
	// settling of a live session's pending requests (session.go).
	resume func() outcome
}

// enforce stops the VM for a limit it hit on its own goroutine. The
// interrupt is uncatchable, so a module cannot swallow the refusal.
func (inv *invocation) enforce(e *Error) {
	if inv.limit == nil {
		inv.limit = e
	}
	inv.rt.Interrupt(e)
}

// outcome is what execute hands the supervisor: an output, the requests a
// suspended script waits on, or an error.
type outcome struct {
	output    []byte
	suspended []Pending
	err       error
}

func newInvocation(p *Program, call Call) *invocation {
	if b := takeSpare(); b != nil {
		return &invocation{prog: p, call: call, rt: b.rt, spare: b}
	}
	return &invocation{prog: p, call: call, rt: goja.New()}
}

// stop interrupts the VM for reason and waits up to stopGrace for it to
// unwind. A VM that does not unwind is stuck in a builtin; its goroutine is
// left to finish on its own, and the process must be discarded because that
// goroutine may still be allocating.
func (inv *invocation) stop(done <-chan outcome, reason *Error) error {
	inv.halted.Store(true)
	inv.rt.Interrupt(reason)
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case <-done:
		return reason
	case <-grace.C:
		stuck := *reason
		stuck.Discard = true
		stuck.Message = bound(reason.Message + fmt.Sprintf("; the engine did not stop within %v, so this process must be discarded", stopGrace))
		return &stuck
	}
}

// execute runs the module on the current goroutine and never panics.
func (inv *invocation) execute() (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{err: fromPanic(r)}
			if inv.limit != nil {
				o.err = inv.limit
			}
		}
	}()
	if inv.resume != nil {
		o = inv.resume()
	} else {
		o = inv.run()
	}
	if inv.limit != nil {
		return outcome{err: inv.limit}
	}
	return o
}

func (inv *invocation) run() outcome {
	failed := func(e *Error) outcome { return outcome{err: e} }
	rt := inv.rt
	b := inv.spare
	if b == nil {
		var err error
		if b, err = prepareRuntime(rt); err != nil {
			return failed(fromGoja(err))
		}
	}
	in, err := setupRuntime(b, &inv.call, inv.prog, inv.enforce)
	if err != nil {
		return failed(fromGoja(err))
	}
	rt.SetAsyncContextTracker(newJobCounter(rt, inv.enforce))

	input, refusal := decodeInput(rt, inv.call.Input)
	if refusal != nil {
		return failed(refusal)
	}
	var second *goja.Object
	if inv.script != nil {
		second, err = inv.script.bind(inv, in)
	} else {
		second, err = environmentObject(rt, in, inv.call.Environment)
	}
	if err != nil {
		return failed(fromGoja(err))
	}
	if _, err := rt.RunProgram(inv.prog.code); err != nil {
		return failed(fromGoja(err))
	}
	fn, refusal := defaultExport(rt)
	if refusal != nil {
		return failed(refusal)
	}
	answer, err := fn(goja.Undefined(), input, second)
	if err != nil {
		return failed(fromGoja(err))
	}
	if inv.script != nil {
		inv.script.answerValue = answer
		return inv.script.finish(answer)
	}
	answer, refusal = settle(rt, in, answer)
	if refusal != nil {
		return failed(refusal)
	}
	out, refusal := encodeOutput(rt, in, answer, &inv.halted)
	if refusal != nil {
		return failed(refusal)
	}
	return outcome{output: out}
}

// defaultExport reads the entry's default export, which the bundle assigned
// to its global, and which must be a function.
func defaultExport(rt *goja.Runtime) (goja.Callable, *Error) {
	def := rt.Get(bundleGlobal)
	fn, ok := goja.AssertFunction(def)
	if !ok {
		return nil, refuse(errcode.ModuleNoDefaultExport, "the module's default export is %s, not a function", describe(def))
	}
	return fn, nil
}

var promiseType = reflect.TypeOf((*goja.Promise)(nil))

// settle resolves the default export's answer. goja drains the promise job
// queue when control returns to Go, so by now a promise has settled unless
// it never can: nothing outside the module (no timer, no I/O) exists to
// settle it later. A non-promise thenable is adopted as await would.
func settle(rt *goja.Runtime, in *intrinsics, v goja.Value) (goja.Value, *Error) {
	state, v, refusal := settled(rt, in, v)
	switch {
	case refusal != nil:
		return nil, refusal
	case state == goja.PromiseStateRejected:
		return nil, rejected(v)
	case state == goja.PromiseStatePending:
		return nil, refuse(errcode.ModulePromisePending, "the module's promise never settled; nothing outside the module can settle it (there are no timers or I/O)")
	}
	return v, nil
}

// settled reports the state of the default export's answer and, once
// settled, its value or reason. A value that is no promise is fulfilled.
func settled(rt *goja.Runtime, in *intrinsics, v goja.Value) (goja.PromiseState, goja.Value, *Error) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return goja.PromiseStateFulfilled, v, nil
	}
	if obj.ExportType() != promiseType {
		if _, thenable := goja.AssertFunction(obj.Get("then")); !thenable {
			return goja.PromiseStateFulfilled, v, nil
		}
		adopted, err := in.promiseResolve(in.promiseCtor, v)
		if err != nil {
			return 0, nil, fromGoja(err)
		}
		obj = adopted.ToObject(rt)
	}
	p, _ := obj.Export().(*goja.Promise)
	return p.State(), p.Result(), nil
}

func rejected(reason goja.Value) *Error {
	return refuse(errcode.ModuleThrew, "the module's promise rejected: %s", valueText(reason))
}

// jobQueue is how the engine sees goja's queue of promise jobs waiting to
// run. goja exposes no length, so its field is read (never written) by
// reflection; a goja upgrade that renames it stops every worker at start.
var jobQueue = func() int {
	f, ok := reflect.TypeOf(goja.Runtime{}).FieldByName("jobQueue")
	if !ok || f.Type.Kind() != reflect.Slice {
		panic("jsworker: goja.Runtime has no jobQueue slice; the promise job bound cannot be kept")
	}
	return f.Index[0]
}()

// jobCounter stops the VM when more than MaxQueuedJobs promise jobs wait in
// the queue at once. The bound is on jobs queued, not jobs run: a module
// awaiting in sequence holds one job at a time however long it runs (the
// wall time bounds that), while one that queues jobs faster than they run
// (a fan-out, a .then per item of a huge array) is refused before the queue
// costs memory. goja asks the tracker at every reaction it registers (Grab)
// and every job it runs (Resumed), which is where the queue grows.
type jobCounter struct {
	enforce func(*Error)
	rt      reflect.Value
	over    bool
}

func newJobCounter(rt *goja.Runtime, enforce func(*Error)) *jobCounter {
	return &jobCounter{enforce: enforce, rt: reflect.ValueOf(rt).Elem()}
}

func (j *jobCounter) Grab() any   { j.check(); return nil }
func (j *jobCounter) Resumed(any) { j.check() }
func (j *jobCounter) Exited()     {}
func (j *jobCounter) queued() int { return j.rt.Field(jobQueue).Len() }
func (j *jobCounter) check() {
	if n := j.queued(); n >= MaxQueuedJobs && !j.over {
		j.over = true
		j.enforce(refuse(errcode.ModuleJobsExceeded, "the module queued more than %d promise jobs at once", MaxQueuedJobs))
	}
}

// fromGoja maps an error from goja into the engine's vocabulary.
func fromGoja(err error) *Error {
	var own *Error
	var overflow *goja.StackOverflowError
	var interrupted *goja.InterruptedError
	var thrown *goja.Exception
	switch {
	case errors.As(err, &own): // an interrupt the engine raised, unwrapped
		return own
	case errors.As(err, &overflow):
		return refuse(errcode.ModuleStackExceeded, "the module exceeded the %d-frame (about %d-byte) call stack", MaxCallDepth, MaxStackBytes)
	case errors.As(err, &interrupted):
		return fault(errcode.ModuleCrashed, "the module was interrupted for an unknown reason: %v", interrupted.Value())
	case errors.As(err, &thrown):
		return refuse(errcode.ModuleThrew, "%s", exceptionText(thrown))
	}
	return refuse(errcode.ModuleThrew, "%v", err)
}

// fromPanic maps a panic that escaped the VM. goja delivers interrupts and
// stack overflows raised inside Go-side calls (a getter run by Object.Get)
// as panics; anything else is a bug in goja or here.
func fromPanic(r any) *Error {
	if err, ok := r.(error); ok {
		var ex *goja.Exception
		var interrupted *goja.InterruptedError
		var overflow *goja.StackOverflowError
		if errors.As(err, &ex) || errors.As(err, &interrupted) || errors.As(err, &overflow) {
			return fromGoja(err)
		}
	}
	return fault(errcode.ModuleCrashed, "the JavaScript engine panicked: %v\n%s", r, debug.Stack())
}

// exceptionText is the thrown value's text and where in the bundle it was
// thrown: the innermost frame that is module code, not a native builtin.
func exceptionText(ex *goja.Exception) string {
	text := valueText(ex.Value())
	for _, frame := range ex.Stack() {
		if frame.SrcName() == "" || frame.SrcName() == "<native>" {
			continue
		}
		pos := frame.Position()
		return fmt.Sprintf("%s (at %s:%d:%d)", text, frame.SrcName(), pos.Line, pos.Column)
	}
	return text
}

// valueText is String(v). It runs module code (a toString), which may
// throw; an interrupt raised meanwhile still unwinds through the panic.
func valueText(v goja.Value) (text string) {
	defer func() {
		if r := recover(); r != nil {
			if _, interrupted := r.(*goja.InterruptedError); interrupted {
				panic(r)
			}
			text = "a value whose toString failed"
		}
	}()
	if v == nil {
		return "undefined"
	}
	return v.String()
}
