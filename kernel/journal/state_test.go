package journal

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// TestTransition holds the run's state machine to every pair of states,
// written out here rather than read from the table, so a transition wrongly
// allowed or wrongly refused fails.
func TestTransition(t *testing.T) {
	const (
		running = StateRunning
		paused  = StatePaused
		stopped = StateStopped
		sealed  = StateSealed
	)
	cases := []struct {
		from, to RunState
		allowed  bool
	}{
		{running, running, true}, // a resume of a run its crashed driver left running
		{running, paused, true},
		{running, stopped, true},
		{running, sealed, true},

		{paused, running, true},
		{paused, paused, true}, // a turn's run paused again on what stays open
		{paused, stopped, false},
		{paused, sealed, true}, // a close

		{stopped, running, true},
		{stopped, paused, true},
		{stopped, stopped, false},
		{stopped, sealed, true},

		{sealed, running, false},
		{sealed, paused, false},
		{sealed, stopped, false},
		{sealed, sealed, false},

		{"", running, false},
		{running, "", false},
		{"done", sealed, false},
		{running, "done", false},
	}
	seen := map[[2]RunState]bool{}
	for _, c := range cases {
		seen[[2]RunState{c.from, c.to}] = true
		err := Transition(c.from, c.to)
		if c.allowed {
			if err != nil {
				t.Errorf("%s -> %s refused: %v", c.from, c.to, err)
			}
			continue
		}
		var te *TransitionError
		if !errors.As(err, &te) || te.From != c.from || te.To != c.to {
			t.Errorf("%s -> %s: got %v, want a *TransitionError", c.from, c.to, err)
			continue
		}
		if code := contract.CodeOf(err); string(code) != errcode.RunTransitionRefused.String() {
			t.Errorf("%s -> %s: code %s, want %s", c.from, c.to, code, errcode.RunTransitionRefused.String())
		}
	}
	for _, from := range RunStates {
		if !from.Valid() {
			t.Errorf("%s listed but not valid", from)
		}
		for _, to := range RunStates {
			if !seen[[2]RunState{from, to}] {
				t.Errorf("%s -> %s has no case", from, to)
			}
		}
	}
	if len(RunStates) != 4 {
		t.Errorf("run states %v: a new state needs its cases here", RunStates)
	}
}

// TestRecordedTransitions drives a run's record into each state through
// the journal's own transitions, then tries each state change on it: the
// journal makes the changes the table allows and refuses the others with
// their code, changing nothing.
func TestRecordedTransitions(t *testing.T) {
	ctx := context.Background()
	into := map[RunState]func(j *Journal, id string) error{
		StateRunning: func(*Journal, string) error { return nil },
		StatePaused:  func(j *Journal, id string) error { return j.Pause(ctx, id, nil) },
		StateStopped: func(j *Journal, id string) error { return j.Stop(ctx, id, 0) },
		StateSealed: func(j *Journal, id string) error {
			return j.Seal(ctx, id, "completed", "", "sha256:r", json.RawMessage(`{}`))
		},
	}
	ops := []struct {
		name string
		to   RunState
		do   func(j *Journal, id string) error
	}{
		{"SetRunning", StateRunning, func(j *Journal, id string) error { return j.SetRunning(ctx, id) }},
		{"UseDecision", StateRunning, func(j *Journal, id string) error { return j.Asks().UseDecision(ctx, id, "a", nil) }},
		{"Pause", StatePaused, func(j *Journal, id string) error { return j.Pause(ctx, id, nil) }},
		{"AddRequests", StatePaused, func(j *Journal, id string) error {
			return j.Asks().AddRequests(ctx, id, []*Request{{Address: "q", Kind: "question", RequestDigest: "sha256:q", Payload: json.RawMessage(`{}`)}})
		}},
		{"Seal", StateSealed, func(j *Journal, id string) error {
			return j.Seal(ctx, id, "completed", "", "sha256:r2", json.RawMessage(`{}`))
		}},
	}
	for _, from := range RunStates {
		for _, op := range ops {
			t.Run(string(from)+"/"+op.name, func(t *testing.T) {
				j := open(t)
				newRun(t, j, "r")
				if err := into[from](j, "r"); err != nil {
					t.Fatal(err)
				}
				before, err := j.Snapshot(ctx, "r")
				if err != nil {
					t.Fatal(err)
				}
				err = op.do(j, "r")
				run, _ := j.GetRun(ctx, "r")
				if Transition(from, op.to) == nil {
					if err != nil || run.State != op.to {
						t.Fatalf("%s from %s: err %v, state %s; want %s", op.name, from, err, run.State, op.to)
					}
					return
				}
				if code := contract.CodeOf(err); string(code) != errcode.RunTransitionRefused.String() {
					t.Fatalf("%s from %s: got %v (code %s), want %s", op.name, from, err, code, errcode.RunTransitionRefused.String())
				}
				if after, _ := j.Snapshot(ctx, "r"); after != before {
					t.Fatalf("%s from %s refused but changed the record:\n%s\n%s", op.name, from, before, after)
				}
			})
		}
	}
}

// TestStopLeavesOthers: Stop moves only the runs of a tree that may become
// stopped; a paused child stays paused, a sealed one sealed.
func TestStopLeavesOthers(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	newRun(t, j, "root")
	for _, id := range []string{"paused", "sealed", "running"} {
		if err := j.CreateRun(ctx, &Run{RunID: id, ParentRunID: "root", ParentAddress: id, SkillName: "s", Method: "m", PackageDir: "/p",
			PackageDigest: "sha256:p", ClosureDigest: "sha256:c", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Pause(ctx, "paused", nil); err != nil {
		t.Fatal(err)
	}
	if err := j.Seal(ctx, "sealed", "completed", "", "sha256:s", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := j.Stop(ctx, "root", 0); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]RunState{"root": StateStopped, "running": StateStopped, "paused": StatePaused, "sealed": StateSealed} {
		if run, _ := j.GetRun(ctx, id); run.State != want {
			t.Errorf("%s: state %s, want %s", id, run.State, want)
		}
	}
}
