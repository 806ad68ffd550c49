package engine

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/sdk/errcode"
)

// RequestKind is what a script asks of the run, as Recorded.Kind and
// Pending.Kind carry it.
type RequestKind string

// Kinds of request a script makes, listed once.
const (
	KindCall RequestKind = "call"
	KindRead RequestKind = "read"
	KindWait RequestKind = "wait"
)

// ScriptCall is what RunScript adds to a Call: the record of the requests
// earlier invocations of the same step suspended on and the kernel has since
// settled, and the step's max_calls.
//
// A script never reaches the kernel from inside the worker. It runs until
// every path forward waits on a request not yet in Record, and RunScript
// returns those requests; the kernel carries them out, records them, and
// invokes the script again with the longer record. The replay starts from
// the beginning and every recorded request is answered at once; with a
// Session, the worker instead resumes the runtime it kept and is given only
// the new entries, and replays once when the script finishes (session.go).
// Fixed clock, seeded randomness and a fresh runtime make the replay ask the
// same things in the same order, and each recorded request is checked against what the
// replay asks (script_nondeterministic), so a module that is not
// deterministic is refused, never given another request's answer.
type ScriptCall struct {
	// Record is what earlier requests settled as, by index, in any order.
	Record []Recorded
	// MaxCalls, 1 to MaxScriptCalls, bounds the ctx.call requests and the
	// ctx.read requests of a reference that the script may make; waits and
	// reads of an inline value do not count.
	MaxCalls int
	// Session, when set, keeps the script's runtime after it suspends, so
	// the next call under the same key resumes it (session.go).
	Session string
	// RecordFrom, with Session, says Record holds only the entries after
	// the RecordFrom the session was given already. A call whose session is
	// gone, or does not continue there, answers ReplayNeeded.
	RecordFrom int
}

// Recorded is one settled request.
type Recorded struct {
	// Index is the request's position in the order the script makes them,
	// from 0; the kernel addresses it as <step>/<index>.
	Index int         `json:"index"`
	Kind  RequestKind `json:"kind"`
	// Tool is the capability a call asked for.
	Tool string `json:"tool,omitempty"`
	// InputDigest is "sha256:<hex>" over the canonical (RFC 8785) JSON of a
	// call's input or of a read's reference: Pending.Input's bytes.
	InputDigest string `json:"input_digest,omitempty"`
	// Output is what a call or read resolved to.
	Output json.RawMessage `json:"output,omitempty"`
	// Error, instead of Output, makes the request's promise reject with an
	// Error whose code and message are these.
	Error *RecordedError `json:"error,omitempty"`
	// SettledAt is when the kernel settled a wait, in milliseconds since the
	// epoch; the wait resolves with it.
	SettledAt int64 `json:"settled_at,omitempty"`
}

// RecordedError is a call or read that failed.
type RecordedError struct {
	Code    errcode.Code `json:"code"`
	Message string       `json:"message"`
}

// Pending is a request the script waits on and the record does not hold.
type Pending struct {
	Index int         `json:"index"`
	Kind  RequestKind `json:"kind"`
	Tool  string      `json:"tool,omitempty"`
	// Input is the canonical JSON of a call's input or a read's reference.
	Input json.RawMessage `json:"input,omitempty"`
	// Until is when a wait ends, in milliseconds since the epoch.
	Until int64 `json:"until,omitempty"`
}

// ScriptResult is a script invocation's answer: exactly one of Output, the
// JSON object the script finished with, and Suspended, every request it made
// that the record does not hold, in index order.
type ScriptResult struct {
	Output    []byte
	Suspended []Pending
	// ReplayNeeded: the call named a session this worker does not hold
	// where the record continues; the caller sends the whole record.
	ReplayNeeded bool
}

// RunScript runs a script module's default export once as (input, ctx),
// where ctx is a frozen { environment, call, read, wait }, replaying
// script.Record. Everything Run guarantees holds here too: the same call
// refusals, limits, guards, determinism, fresh runtime and discard rules. A
// failure or refusal is an *Error; any other error is a caller bug.
//
// The default export's promise is drained as Run drains it. Fulfilled with
// every request answered, it is the Output. Rejected, it is module_threw.
// Otherwise, when the script made requests the record does not hold, they
// are Suspended; that includes a script that finished while a request it
// made but never awaited is outstanding, so every request a script makes is
// carried out before its output stands. Pending with no request outstanding
// is module_promise_pending, as for a module.
func RunScript(ctx context.Context, p *Program, call Call, script ScriptCall) (ScriptResult, error) {
	timeout, err := admit(ctx, p, call)
	if err != nil {
		return ScriptResult{}, err
	}
	if script.Session != "" {
		return runSession(ctx, p, call, script, timeout)
	}
	if script.RecordFrom != 0 {
		return ScriptResult{}, refuse(errcode.ScriptRecordInvalid, "record_from needs a session")
	}
	state, refusal := newScriptState(script)
	if refusal != nil {
		return ScriptResult{}, refusal
	}
	inv := newInvocation(p, call)
	inv.script = state
	o, err := supervise(ctx, inv, timeout)
	if err != nil {
		return ScriptResult{}, err
	}
	return ScriptResult{Output: o.output, Suspended: o.suspended}, nil
}

// newScriptState checks max_calls and the record's shape before anything
// runs: a malformed record is the kernel's bug, and no replay may start on
// it.
func newScriptState(script ScriptCall) (*scriptState, *Error) {
	if script.MaxCalls < 1 || script.MaxCalls > MaxScriptCalls {
		return nil, refuse(errcode.ScriptMaxCallsInvalid, "max_calls is %d; it must be 1 to %d", script.MaxCalls, MaxScriptCalls)
	}
	record := make(map[int]*Recorded, len(script.Record))
	for i := range script.Record {
		r := &script.Record[i]
		if err := checkRecorded(r); err != nil {
			return nil, err
		}
		if _, dup := record[r.Index]; dup {
			return nil, refuse(errcode.ScriptRecordInvalid, "the record holds request %d twice", r.Index)
		}
		record[r.Index] = r
	}
	return &scriptState{maxCalls: script.MaxCalls, record: record}, nil
}

// checkRecorded refuses an entry that cannot be given one meaning. Fields
// another kind uses (a tool on a read, a digest on a wait) are ignored, not
// refused: they change nothing the replay does.
func checkRecorded(r *Recorded) *Error {
	invalid := func(why string) *Error {
		return refuse(errcode.ScriptRecordInvalid, "record entry %d (%s) %s", r.Index, r.Kind, why)
	}
	if r.Index < 0 {
		return invalid("has a negative index")
	}
	switch r.Kind {
	case KindCall, KindRead:
		if r.Kind == KindCall && r.Tool == "" {
			return invalid("names no tool")
		}
		if r.InputDigest == "" {
			return invalid("has no input_digest")
		}
		if (r.Output == nil) == (r.Error == nil) {
			return invalid("must hold exactly one of output and error")
		}
		if r.Error != nil && r.Error.Code == "" {
			return invalid("has an error with no code")
		}
	case KindWait:
		if r.SettledAt <= 0 {
			return invalid("has no positive settled_at")
		}
		if r.Output != nil || r.Error != nil {
			return invalid("has an output or error; a wait settles only with settled_at")
		}
	default:
		return refuse(errcode.ScriptRecordInvalid, "record entry %d has kind %q; it must be call, read or wait", r.Index, r.Kind)
	}
	return nil
}
