package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
)

// RunState is where a run's record stands: the runs table's state column.
// Every value is listed here once, and every change of it the journal
// makes goes through the transitions table below.
type RunState string

// Run states.
const (
	// StateRunning is a run some driver works (or worked until it died: a
	// crashed driver leaves its run running for the next one).
	StateRunning RunState = "running"
	// StatePaused is a run waiting on requests (Pause).
	StatePaused RunState = "paused"
	// StateSealed is a run with its receipt: the end, nothing leaves it.
	StateSealed RunState = "sealed"
	// StateStopped is a run a driver stopped on SIGTERM between steps: not
	// sealed, not waiting on anyone, continued by its next driver.
	StateStopped RunState = "stopped"
)

// RunStates lists every run state, in the order a run meets them.
var RunStates = []RunState{StateRunning, StatePaused, StateStopped, StateSealed}

// transitions is the run's state machine: for each state, the states a
// recorded transition may move it to. A run is created running
// (CreateRun). A state may "move" to itself where the journal records one
// transition over another: a resume of a run its crashed driver left
// running (SetRunning), a decision used while the run is driven
// (UseDecision), a turn's run paused again on what stays open (Pause).
var transitions = map[RunState][]RunState{
	// Driven: it may wait, stop on a signal, or seal.
	StateRunning: {StateRunning, StatePaused, StateStopped, StateSealed},
	// Waiting: a resume (or a turn's call using a decision) drives it, a
	// turn's call pauses it again on what stays open, a close seals it. A
	// signal stops only what is running (Stop).
	StatePaused: {StateRunning, StatePaused, StateSealed},
	// Stopped: its next driver drives it, a turn's call left open before
	// the signal pauses it again, a close seals it.
	StateStopped: {StateRunning, StatePaused, StateSealed},
	// Sealed is the end: a sealed run's record never changes state again.
	StateSealed: nil,
}

// Valid reports whether s is one of the run states.
func (s RunState) Valid() bool {
	_, ok := transitions[s]
	return ok
}

// TransitionError is a run state change the transitions table refuses.
type TransitionError struct {
	RunID    string // empty when no run is named (Transition)
	From, To RunState
}

func (e *TransitionError) Error() string {
	if e.RunID == "" {
		return fmt.Sprintf("a %s run cannot become %s", e.From, e.To)
	}
	return fmt.Sprintf("run %s is %s and cannot become %s", e.RunID, e.From, e.To)
}

// ErrorCode is run_transition_refused: a sealed run driven, paused or
// sealed again, or a paused run marked stopped.
func (e *TransitionError) ErrorCode() errcode.Code { return errcode.RunTransitionRefused }

// Transition allows the change of a run's state from from to to, or
// refuses it with a *TransitionError.
func Transition(from, to RunState) error {
	for _, next := range transitions[from] {
		if next == to {
			return nil
		}
	}
	return &TransitionError{From: from, To: to}
}

// sourceSlots is how many states a state-changing statement names as the
// run's allowed current states (`state IN (?,?,?,?)`): every state, so any
// row of the table fits.
const sourceSlots = 4

// sources lists, for each target, the states a run may be in to move to it,
// as the arguments of `state IN (?,?,?,?)`, padded with the empty state no
// run is ever in.
var sources = func() map[RunState][sourceSlots]any {
	out := map[RunState][sourceSlots]any{}
	for _, to := range RunStates {
		var from [sourceSlots]any
		n := 0
		for _, s := range RunStates {
			if Transition(s, to) == nil {
				from[n] = string(s)
				n++
			}
		}
		for ; n < sourceSlots; n++ {
			from[n] = ""
		}
		out[to] = from
	}
	return out
}()

// refusedTransition says why a state change of runID to to changed no row:
// the run is not there, or its state may not become to.
func (j *Journal) refusedTransition(ctx context.Context, tx *sql.Tx, runID string, to RunState) error {
	var from RunState
	err := tx.QueryRowContext(ctx, `SELECT state FROM runs WHERE run_id = ?`, runID).Scan(&from)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(runID)
	}
	if err != nil {
		return err
	}
	if err := Transition(from, to); err != nil {
		var te *TransitionError
		if errors.As(err, &te) {
			te.RunID = runID
		}
		return err
	}
	// Allowed now, so the row changed under the statement: not possible
	// inside one IMMEDIATE transaction.
	return fmt.Errorf("run %s: state change to %s changed no row", runID, to)
}
