package engine

import (
	"github.com/dop251/goja"

	"github.com/runxhq/runx/sdk/errcode"
)

// scriptState is one script invocation's side of the replay: the record it
// answers from, and the requests it has made.
type scriptState struct {
	maxCalls int
	record   map[int]*Recorded

	next    int       // the index the next request takes
	calls   int       // calls and reads of a reference made, against maxCalls
	pending []Pending // requests made that the record does not hold, in index order
	// waiters settle the pending requests' promises when a live session
	// resumes (session.go), by index.
	waiters map[int]waiter
	// answerValue is the default export's answer, kept for a resume.
	answerValue goja.Value

	// Bound to the runtime by bind; used only on the VM's goroutine.
	inv *invocation
	in  *intrinsics
}

// bind attaches the state to its invocation's runtime and returns the frozen
// ctx the default export gets as its second argument.
func (s *scriptState) bind(inv *invocation, in *intrinsics) (*goja.Object, error) {
	s.inv, s.in = inv, in
	rt := inv.rt
	env, err := frozenEnvironment(rt, in, inv.call.Environment)
	if err != nil {
		return nil, err
	}
	ctx := rt.NewObject()
	members := []struct {
		name  string
		value goja.Value
	}{
		{"environment", env},
		{"call", rt.ToValue(s.call)},
		{"read", rt.ToValue(s.read)},
		{"wait", rt.ToValue(s.wait)},
	}
	for _, m := range members {
		if err := ctx.DefineDataProperty(m.name, m.value, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return nil, err
		}
	}
	if _, err := in.freeze(goja.Undefined(), ctx); err != nil {
		return nil, err
	}
	return ctx, nil
}

// call is ctx.call(tool, input). A malformed call throws a TypeError the
// script may catch: it is no request and takes no index.
func (s *scriptState) call(c goja.FunctionCall) goja.Value {
	rt := s.inv.rt
	tool, ok := primitiveString(c.Argument(0))
	if !ok || tool == "" {
		panic(rt.NewTypeError("ctx.call expects a tool id, a non-empty string, as its first argument"))
	}
	input, refusal := encodeRequest(rt, s.in, c.Argument(1), &s.inv.halted)
	if refusal == errHalted {
		return goja.Undefined() // the VM is already unwinding
	}
	if refusal != nil {
		panic(rt.NewTypeError("ctx.call(" + quoteTool(tool) + "): " + refusal.Message))
	}
	if !s.count() {
		return goja.Undefined()
	}
	return s.request(KindCall, tool, input, 0)
}

// read is ctx.read(value). Only a reference is a request; any other value is
// given back at once, with no index and nothing drawn from max_calls, so a
// script reads its items alike whether they arrived inline or by reference.
func (s *scriptState) read(c goja.FunctionCall) goja.Value {
	v := c.Argument(0)
	ref, isRef := referenceOf(v)
	if !isRef {
		return s.resolved(v)
	}
	input, err := canonicalReference(ref)
	if err != nil {
		panic(s.inv.rt.NewTypeError("ctx.read: the reference cannot be canonicalised: " + err.Error()))
	}
	if !s.count() {
		return goja.Undefined()
	}
	return s.request(KindRead, "", input, 0)
}

// wait is ctx.wait({until}). It is always a request, even when until has
// passed: the worker never reads a clock, so the kernel settles every wait
// and a replay answers it from the record, the same on every host.
func (s *scriptState) wait(c goja.FunctionCall) goja.Value {
	rt := s.inv.rt
	until, ok := untilOf(c.Argument(0))
	if !ok {
		panic(rt.NewTypeError("ctx.wait expects { until }, until a positive integer of milliseconds since the epoch"))
	}
	return s.request(KindWait, "", nil, until)
}

// count draws one from max_calls and stops the invocation past it. The stop
// is uncatchable: a script cannot swallow its bound and carry on.
func (s *scriptState) count() bool {
	s.calls++
	if s.calls > s.maxCalls {
		s.inv.enforce(refuse(errcode.ScriptMaxCallsExceeded, "the script made more than %d calls and reads of a reference (max_calls) at request %d", s.maxCalls, s.next))
		return false
	}
	return true
}

// request gives the next index to a request and returns its promise: settled
// from the record when it holds the index, pending otherwise.
func (s *scriptState) request(kind RequestKind, tool string, input []byte, until int64) goja.Value {
	index := s.next
	s.next++
	rec, ok := s.record[index]
	if !ok {
		s.pending = append(s.pending, Pending{Index: index, Kind: kind, Tool: tool, Input: input, Until: until})
		promise, resolve, reject := s.inv.rt.NewPromise()
		if s.waiters == nil {
			s.waiters = map[int]waiter{}
		}
		s.waiters[index] = waiter{resolve: resolve, reject: reject}
		return s.inv.rt.ToValue(promise)
	}
	if refusal := matches(rec, index, kind, tool, input); refusal != nil {
		s.inv.enforce(refusal)
		return goja.Undefined()
	}
	return s.answer(index, rec)
}

// answer is a recorded request's promise, settled as the record says.
func (s *scriptState) answer(index int, rec *Recorded) goja.Value {
	promise, resolve, reject := s.inv.rt.NewPromise()
	if !s.settle(index, rec, waiter{resolve: resolve, reject: reject}) {
		return goja.Undefined()
	}
	return s.inv.rt.ToValue(promise)
}

// waiter settles one request's promise.
type waiter struct{ resolve, reject func(any) error }

// settle settles a request's promise as rec records it: a wait with when
// the kernel settled it, a failure with an Error carrying the recorded code
// and message, anything else with its recorded output. False: an output
// that does not decode stopped the VM.
func (s *scriptState) settle(index int, rec *Recorded, w waiter) bool {
	rt := s.inv.rt
	var err error
	switch {
	case rec.Kind == KindWait:
		err = w.resolve(rt.ToValue(rec.SettledAt))
	case rec.Error != nil:
		err = w.reject(s.recordedError(rec.Error))
	default:
		v, refusal := decodeValue(rt, rec.Output, "the recorded output of request "+itoa(index))
		if refusal != nil {
			s.inv.enforce(refusal)
			return false
		}
		err = w.resolve(v)
	}
	if err != nil {
		panic(err) // an interrupt: keep unwinding
	}
	return true
}

// resolved is a promise already fulfilled with v.
func (s *scriptState) resolved(v goja.Value) goja.Value {
	promise, resolve, _ := s.inv.rt.NewPromise()
	if err := resolve(v); err != nil {
		panic(err)
	}
	return s.inv.rt.ToValue(promise)
}

// recordedError is new Error(message) with .code, built with the Error
// captured before module code ran, so a module that replaces Error still
// gets a real one.
func (s *scriptState) recordedError(e *RecordedError) *goja.Object {
	rt := s.inv.rt
	obj, err := rt.New(s.in.errorCtor, rt.ToValue(e.Message))
	if err != nil {
		panic(err)
	}
	if err := obj.DefineDataProperty("code", rt.ToValue(e.Code), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
		panic(err)
	}
	return obj
}

// finish turns the drained default export into the invocation's outcome.
func (s *scriptState) finish(answer goja.Value) outcome {
	inv := s.inv
	state, v, refusal := settled(inv.rt, s.in, answer)
	switch {
	case refusal != nil:
		return outcome{err: refusal}
	case state == goja.PromiseStateRejected:
		return outcome{err: rejected(v)}
	case len(s.pending) > 0:
		return outcome{suspended: s.pending}
	case state == goja.PromiseStatePending:
		return outcome{err: refuse(errcode.ModulePromisePending, "the script's promise never settled, and it waits on no request of ctx.call, ctx.read or ctx.wait")}
	}
	if refusal := s.unasked(); refusal != nil {
		return outcome{err: refusal}
	}
	out, refusal := encodeOutputUpTo(inv.rt, s.in, v, &inv.halted, MaxScriptOutputBytes)
	if refusal != nil {
		return outcome{err: refusal}
	}
	return outcome{output: out}
}

// unasked refuses a finished script whose record holds a request it never
// made: the run it replays asked for more than this one did.
func (s *scriptState) unasked() *Error {
	first := -1
	for index := range s.record {
		if index >= s.next && (first < 0 || index < first) {
			first = index
		}
	}
	if first < 0 {
		return nil
	}
	return refuse(errcode.ScriptNondeterministic,
		"the script finished after %d requests, but the record holds request %d; a replay must ask what the run it replays asked (is the module deterministic?)",
		s.next, first)
}
