package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/runxhq/runx/sdk/errcode"
)

// Live sessions keep a suspended script's runtime between invocations, so
// a script that awaits its requests one at a time resumes where it stopped
// instead of replaying its whole record on every suspension, which cost
// time quadratic in its length.
//
// A session is an optimisation the replay still judges. It is kept only
// under the key the caller names (ScriptCall.Session), and resumed only by
// a call whose record continues exactly where the session stopped
// (RecordFrom, the entries it holds) with the same program, input,
// environment, seed, timeout and max_calls; the script reads the clock of
// the call that started the session throughout, and so does the replay that
// ends it. The new entries settle the
// session's pending promises together, in one turn, and the script runs on.
// Everything a replay bounds stays bounded across a session's invocations:
// their wall time together within one timeout, their heap growth together
// within MaxHeapBytes, their queued promise jobs within one bound; past any of
// them the session is dropped and the caller replays. And when a resumed
// script finishes, it is replayed once from the start over its whole
// record, fresh and under the full limits, and that replay's answer is the
// step's (its output, or the requests it still asks, or
// script_nondeterministic when it asks differently from the record): the
// answer any later replay of the record reproduces, as before sessions.
// That final replay is the only one, so a script of n requests costs time
// linear in n. A script whose live run and replay differ (one that races a
// request against a settled promise) may be refused where a replay at
// every step would have followed the replay's view throughout.

// maxSessions bounds the runtimes one worker keeps; the oldest goes first.
const maxSessions = 4

type session struct {
	key         string
	fingerprint string
	prog        *Program
	call        Call
	maxCalls    int
	inv         *invocation
	record      []Recorded // every entry the runtime has been given
	used        time.Duration
	grown       uint64
}

var sessions struct {
	sync.Mutex
	live []*session // oldest first
}

// takeSession removes and returns the session under key, or nil.
func takeSession(key string) *session {
	sessions.Lock()
	defer sessions.Unlock()
	for i, s := range sessions.live {
		if s.key == key {
			sessions.live = append(sessions.live[:i], sessions.live[i+1:]...)
			return s
		}
	}
	return nil
}

func keepSession(s *session) {
	sessions.Lock()
	defer sessions.Unlock()
	if len(sessions.live) >= maxSessions {
		sessions.live = sessions.live[1:]
	}
	sessions.live = append(sessions.live, s)
}

// fingerprint binds a session to everything a replay starts from.
func fingerprint(p *Program, call Call, maxCalls int) string {
	h := sha256.New()
	env, _ := json.Marshal(call.Environment)
	for _, part := range [][]byte{[]byte(p.digest), call.Input, env} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	// Not the clock: a host may send its current time with every call, and
	// the session keeps reading the clock it started with, as a replay of
	// the session's record does.
	var nums [24]byte
	binary.LittleEndian.PutUint64(nums[0:], uint64(call.Seed))
	binary.LittleEndian.PutUint64(nums[8:], uint64(maxCalls))
	binary.LittleEndian.PutUint64(nums[16:], uint64(call.Timeout))
	h.Write(nums[:])
	return hex.EncodeToString(h.Sum(nil))
}

// runSession is RunScript for a call that names a session.
func runSession(ctx context.Context, p *Program, call Call, script ScriptCall, timeout time.Duration) (ScriptResult, error) {
	if script.RecordFrom > 0 {
		s := takeSession(script.Session)
		if s == nil || s.fingerprint != fingerprint(p, call, script.MaxCalls) || len(s.record) != script.RecordFrom {
			return ScriptResult{ReplayNeeded: true}, nil
		}
		return s.resume(ctx, script.Record, timeout)
	}
	takeSession(script.Session) // a replay from the start replaces any session
	return replaySession(ctx, p, call, script, timeout)
}

// replaySession replays the script from the start over the whole record,
// as a call with no session does, and keeps the runtime as the session's
// when it suspends.
func replaySession(ctx context.Context, p *Program, call Call, script ScriptCall, timeout time.Duration) (ScriptResult, error) {
	state, refusal := newScriptState(script)
	if refusal != nil {
		return ScriptResult{}, refusal
	}
	inv := newInvocation(p, call)
	inv.script = state
	start := time.Now()
	o, grown, err := superviseMeasured(ctx, inv, timeout)
	if err != nil {
		return ScriptResult{}, err
	}
	if o.output != nil {
		return ScriptResult{Output: o.output}, nil
	}
	s := &session{key: script.Session, fingerprint: fingerprint(p, call, script.MaxCalls), prog: p, call: call, maxCalls: script.MaxCalls,
		inv: inv, record: append([]Recorded(nil), script.Record...), used: time.Since(start), grown: grown}
	s.keepIfBounded(timeout)
	return ScriptResult{Suspended: o.suspended}, nil
}

// keepIfBounded keeps the session while what it has used leaves room.
func (s *session) keepIfBounded(timeout time.Duration) {
	if s.used < timeout && s.grown <= MaxHeapBytes {
		keepSession(s)
	}
}

// resume settles the session's pending requests with the new entries and
// runs the script on until it suspends again or finishes.
func (s *session) resume(ctx context.Context, delta []Recorded, timeout time.Duration) (ScriptResult, error) {
	state := s.inv.script
	waiting := make(map[int]Pending, len(state.pending))
	for _, p := range state.pending {
		waiting[p.Index] = p
	}
	entries := append([]Recorded(nil), delta...)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Index < entries[j].Index })
	for i := range entries {
		r := &entries[i]
		if err := checkRecorded(r); err != nil {
			return ScriptResult{}, err
		}
		p, ok := waiting[r.Index]
		if !ok {
			return ScriptResult{}, refuse(errcode.ScriptRecordInvalid, "record entry %d settles no request the script waits on", r.Index)
		}
		if refusal := matches(r, p.Index, p.Kind, p.Tool, p.Input); refusal != nil {
			return ScriptResult{}, refusal
		}
		delete(waiting, r.Index)
	}
	rt := s.inv.rt
	s.inv.resume = func() outcome {
		// One call from Go settles every entry: the promise jobs they start
		// run when it returns, after all of them are settled.
		settleAll, _ := goja.AssertFunction(rt.ToValue(func(goja.FunctionCall) goja.Value {
			for i := range entries {
				r := &entries[i]
				state.record[r.Index] = r
				w := state.waiters[r.Index]
				delete(state.waiters, r.Index)
				if !state.settle(r.Index, r, w) {
					break
				}
			}
			return goja.Undefined()
		}))
		if _, err := settleAll(goja.Undefined()); err != nil {
			return outcome{err: fromGoja(err)}
		}
		settled := make(map[int]bool, len(entries))
		for i := range entries {
			settled[entries[i].Index] = true
		}
		kept := state.pending[:0]
		for _, p := range state.pending {
			if !settled[p.Index] {
				kept = append(kept, p)
			}
		}
		state.pending = kept
		return state.finish(state.answerValue)
	}
	start := time.Now()
	o, grown, err := superviseMeasured(ctx, s.inv, timeout-s.used)
	s.used += time.Since(start)
	s.grown += grown
	s.record = append(s.record, entries...)
	var e *Error
	if errors.As(err, &e) && e.Code == errcode.ModuleTimeout && !e.Discard {
		// The session ran out of the time one replay has: a replay from
		// the start, under the full limit, judges the script.
		return ScriptResult{ReplayNeeded: true}, nil
	}
	if err != nil {
		return ScriptResult{}, err
	}
	if o.output == nil {
		s.keepIfBounded(timeout)
		return ScriptResult{Suspended: o.suspended}, nil
	}
	// Finished live: the answer is what a replay from the start over the
	// whole record answers, as it was before sessions, so the output is the
	// one any later replay of this record reproduces.
	return replaySession(ctx, s.prog, s.call, ScriptCall{Record: s.record, MaxCalls: s.maxCalls, Session: s.key}, timeout)
}
