package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
)

// Run is one run's record.
type Run struct {
	RunID         string          `json:"run_id"`
	ParentRunID   string          `json:"parent_run_id,omitempty"`
	ParentAddress string          `json:"parent_address,omitempty"`
	SkillName     string          `json:"skill_name"`
	Method        string          `json:"method"`
	PackageDir    string          `json:"package_dir"`
	PackageDigest string          `json:"package_digest"`
	ClosureDigest string          `json:"closure_digest"`
	Authority     json.RawMessage `json:"authority"`
	Inputs        json.RawMessage `json:"inputs"`
	Act           string          `json:"act,omitempty"`
	State         RunState        `json:"state"`
	Outcome       seal.Outcome    `json:"outcome,omitempty"`
	SealReason    seal.Reason     `json:"seal_reason,omitempty"`
	ReceiptID     string          `json:"receipt_id,omitempty"`
	Envelope      json.RawMessage `json:"envelope,omitempty"`
	StartedAt     string          `json:"started_at"`
	UpdatedAt     string          `json:"updated_at"`
	Version       int64           `json:"version"`
	// ContextDigest is the digest of the context a child run was started
	// under (its effective authority, act, actor): the identity evidence a
	// later skill call's reuse compares. It rides in the run.started event,
	// not a column; a run without it is never reused.
	ContextDigest string `json:"context_digest,omitempty"`
}

// Step is one step (or fan-out item, or child) a run recorded.
type Step struct {
	RunID     string              `json:"run_id"`
	Address   string              `json:"address"`
	StepID    string              `json:"step_id"`
	Status    contract.StepStatus `json:"status"`
	Output    json.RawMessage     `json:"output,omitempty"`
	Error     json.RawMessage     `json:"error,omitempty"`
	ReceiptID string              `json:"receipt_id,omitempty"`
	ChildRef  json.RawMessage     `json:"child_ref,omitempty"`
	Seq       int64               `json:"seq"`
	// Answered is what the tree's plugins had answered when the unit
	// settled, in bytes: kept in the step's event, so a crash loses at
	// most the unit in flight from the tree's answer bound (AnsweredBytes).
	// It is never read back into a Step.
	Answered int64 `json:"-"`
}

// Request is something a paused run waits on.
type Request struct {
	RunID         string               `json:"run_id"`
	Address       string               `json:"address"`
	Kind          contract.RequestKind `json:"kind"`
	RequestDigest string               `json:"request_digest"`
	Payload       json.RawMessage      `json:"payload"`
	State         RequestState         `json:"state"`
	Seq           int64                `json:"seq"`
}

// RequestState is whether a request still waits on its answer.
type RequestState string

// Request states.
const (
	RequestOpen     RequestState = "open"
	RequestAnswered RequestState = "answered"
)

// Decision is an admitted answer or approval, recorded before it is used.
type Decision struct {
	RunID         string          `json:"run_id"`
	Address       string          `json:"address"`
	Lane          string          `json:"lane"`
	RequestDigest string          `json:"request_digest"`
	Value         json.RawMessage `json:"value"`
	Used          bool            `json:"used"`
	RecordedAt    string          `json:"recorded_at"`
}

// Event is one entry of a run's event log.
type Event struct {
	Seq    int64           `json:"seq"`
	Stream string          `json:"stream"`
	Type   string          `json:"type"`
	Data   json.RawMessage `json:"data"`
	At     string          `json:"at"`
}

const runColumns = `run_id, parent_run_id, parent_address, skill_name, method, package_dir, package_digest,
	closure_digest, authority, inputs, act, state, outcome, seal_reason, receipt_id, envelope, started_at, updated_at, version`

func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	return scanRunWith(row)
}

// scanRunWith scans runColumns and then the extra columns a query selects
// after them.
func scanRunWith(row interface{ Scan(...any) error }, extra ...any) (*Run, error) {
	var r Run
	var authority, inputs, envelope string
	dest := []any{&r.RunID, &r.ParentRunID, &r.ParentAddress, &r.SkillName, &r.Method, &r.PackageDir,
		&r.PackageDigest, &r.ClosureDigest, &authority, &inputs, &r.Act, &r.State, &r.Outcome, &r.SealReason,
		&r.ReceiptID, &envelope, &r.StartedAt, &r.UpdatedAt, &r.Version}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	r.Authority, r.Inputs, r.Envelope = raw(authority), raw(inputs), raw(envelope)
	return &r, nil
}

// CreateRun records a new run as running.
func (j *Journal) CreateRun(ctx context.Context, r *Run) error {
	now := j.now()
	r.State, r.StartedAt, r.UpdatedAt = StateRunning, now, now
	return j.tx(ctx, func(tx *sql.Tx) error {
		_, err := j.exec(ctx, tx, sqlCreateRun,
			r.RunID, r.ParentRunID, r.ParentAddress, r.SkillName, r.Method, r.PackageDir, r.PackageDigest,
			r.ClosureDigest, j.text(r.Authority), j.text(r.Inputs), r.Act, string(r.State), "", "", "", "", now, now)
		if err != nil {
			return err
		}
		started := map[string]any{"skill": r.SkillName, "method": r.Method, "package_digest": r.PackageDigest}
		if r.ContextDigest != "" {
			started["context_digest"] = r.ContextDigest
		}
		return j.appendEvent(ctx, tx, r.RunID, "run", "run.started", started, now)
	})
}

// GetRun reads one run.
func (j *Journal) GetRun(ctx context.Context, runID string) (*Run, error) {
	r, err := scanRun(j.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE run_id = ?`, runID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(runID)
	}
	return r, err
}

// ChildRun finds the child run a parent's step started, if any.
func (j *Journal) ChildRun(ctx context.Context, parentRunID, address string) (*Run, error) {
	r, err := scanRun(j.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE parent_run_id = ? AND parent_address = ?`, parentRunID, address))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

// Steps lists a run's recorded steps in the order they were recorded.
func (j *Journal) Steps(ctx context.Context, runID string) (map[string]*Step, error) {
	rows, err := j.query(ctx, sqlStepsOfRun, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*Step{}
	for rows.Next() {
		s := &Step{RunID: runID}
		var output, errText, child string
		if err := rows.Scan(&s.Address, &s.StepID, &s.Status, &output, &errText, &s.ReceiptID, &child, &s.Seq); err != nil {
			return nil, err
		}
		s.Output, s.Error, s.ChildRef = raw(output), raw(errText), raw(child)
		out[s.Address] = s
	}
	return out, rows.Err()
}

// StepsAt reads the steps recorded at the given addresses of a run, each
// by its key: a script's driver reads the requests it just settled without
// reading every step of the run again.
func (j *Journal) StepsAt(ctx context.Context, runID string, addresses []string) (map[string]*Step, error) {
	out := make(map[string]*Step, len(addresses))
	const batch = 500 // well under SQLite's bound on parameters
	for len(addresses) > 0 {
		n := min(batch, len(addresses))
		args := make([]any, 0, n+1)
		args = append(args, runID)
		for _, a := range addresses[:n] {
			args = append(args, a)
		}
		rows, err := j.db.QueryContext(ctx, `SELECT address, step_id, status, output, error, receipt_id, child_ref, seq FROM steps WHERE run_id = ? AND address IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			s := &Step{RunID: runID}
			var output, errText, child string
			if err := rows.Scan(&s.Address, &s.StepID, &s.Status, &output, &errText, &s.ReceiptID, &child, &s.Seq); err != nil {
				rows.Close()
				return nil, err
			}
			s.Output, s.Error, s.ChildRef = raw(output), raw(errText), raw(child)
			out[s.Address] = s
		}
		err = rows.Err()
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		addresses = addresses[n:]
	}
	return out, nil
}

// RecordStep records a settled step (its receipt sealed) as one transition.
func (j *Journal) RecordStep(ctx context.Context, s *Step) error {
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error { return j.recordStep(ctx, tx, s, now) })
}

// recordStep is RecordStep's transition inside tx: the step's row, the
// run's touch and its step event.
func (j *Journal) recordStep(ctx context.Context, tx *sql.Tx, s *Step, now string) error {
	var seq int64
	if err := j.queryRow(ctx, tx, sqlNextStepSeq, s.RunID).Scan(&seq); err != nil {
		return err
	}
	s.Seq = seq
	if _, err := j.exec(ctx, tx, sqlRecordStep,
		s.RunID, s.Address, s.StepID, s.Status, j.text(s.Output), j.text(s.Error), s.ReceiptID, string(s.ChildRef), seq); err != nil {
		return err
	}
	if err := j.touch(ctx, tx, s.RunID, "", now); err != nil {
		return err
	}
	return j.appendEvent(ctx, tx, s.RunID, "steps", "step."+string(s.Status), stepEvent{s.Address, s.StepID, s.ReceiptID, s.Answered}, now)
}

// stepEvent is the data of a recorded step's event. Answered keeps the
// tree's count (answeredBytesKey), left out when there is none.
type stepEvent struct {
	Address   string `json:"address"`
	StepID    string `json:"step_id"`
	ReceiptID string `json:"receipt_id"`
	Answered  int64  `json:"answered_bytes,omitempty"`
}

// touch records that a run changed, and moves it to state when state is
// not empty, as the transitions table allows (state.go).
func (j *Journal) touch(ctx context.Context, tx *sql.Tx, runID string, state RunState, now string) error {
	q := sqlTouch
	args := []any{now, runID}
	if state != "" {
		from := sources[state]
		q = sqlTouchState
		args = []any{now, string(state), runID, from[0], from[1], from[2], from[3]}
	}
	res, err := j.exec(ctx, tx, q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if state != "" {
			return j.refusedTransition(ctx, tx, runID, state)
		}
		return notFound(runID)
	}
	return nil
}

// Children lists the child runs a run started.
func (j *Journal) Children(ctx context.Context, parentRunID string) ([]*Run, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE parent_run_id = ? ORDER BY started_at, run_id`, parentRunID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Driven reports whether some process holds the run's driver lock now.
func (j *Journal) Driven(runID string) bool {
	d, err := j.Drive(runID)
	if err != nil {
		return true
	}
	d.Release()
	return false
}

// RecordSteps records several settled units as one transition: a fan-out's
// effect-free items, group-committed so a thousand of them cost a handful of
// fsyncs rather than a thousand.
func (j *Journal) RecordSteps(ctx context.Context, steps []*Step) error {
	if len(steps) == 0 {
		return nil
	}
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		var seq, answered int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM steps WHERE run_id = ?`, steps[0].RunID).Scan(&seq); err != nil {
			return err
		}
		for _, s := range steps {
			answered = max(answered, s.Answered)
			seq++
			s.Seq = seq
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO steps (run_id, address, step_id, status, output, error, receipt_id, child_ref, seq) VALUES (?,?,?,?,?,?,?,?,?)`,
				s.RunID, s.Address, s.StepID, s.Status, j.text(s.Output), j.text(s.Error), s.ReceiptID, string(s.ChildRef), seq); err != nil {
				return err
			}
		}
		if err := j.touch(ctx, tx, steps[0].RunID, "", now); err != nil {
			return err
		}
		data := map[string]any{"count": len(steps), "first": steps[0].Address, "last": steps[len(steps)-1].Address}
		if answered > 0 {
			data[answeredBytesKey] = answered
		}
		return j.appendEvent(ctx, tx, steps[0].RunID, "steps", "steps.batch", data, now)
	})
}

// Snapshot is a run's whole record, used to prove a refused resume changed
// nothing.
func (j *Journal) Snapshot(ctx context.Context, runID string) (string, error) {
	run, err := j.GetRun(ctx, runID)
	if err != nil {
		return "", err
	}
	// Every part is read or the snapshot fails: a part left out would make
	// two snapshots equal over a change they did not see.
	steps, err := j.Steps(ctx, runID)
	if err != nil {
		return "", err
	}
	reqs, err := j.Asks().Requests(ctx, runID)
	if err != nil {
		return "", err
	}
	decs, err := j.Asks().Decisions(ctx, runID)
	if err != nil {
		return "", err
	}
	evs, err := j.Events(ctx, runID, 0)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{"run": run, "steps": steps, "requests": reqs, "decisions": decs, "events": evs})
	return string(b), err
}

// SetAuthority records a run's authority anew (a resume's standing
// approvals), as one transition.
func (j *Journal) SetAuthority(ctx context.Context, runID string, authority json.RawMessage) error {
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET authority = ? WHERE run_id = ?`, j.text(authority), runID); err != nil {
			return err
		}
		if err := j.touch(ctx, tx, runID, "", now); err != nil {
			return err
		}
		return j.appendEvent(ctx, tx, runID, "decisions", "standing_approvals.recorded", map[string]any{}, now)
	})
}
