package journal

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract/seal"
)

// Pause seals a checkpoint: the run's open requests are exactly reqs (an
// open request the run no longer asks is dropped), and the run is paused.
func (j *Journal) Pause(ctx context.Context, runID string, reqs []*Request) error {
	return j.PauseRoot(ctx, runID, reqs, 0)
}

// PauseRoot is Pause for the root of a run's tree, which also keeps what
// the tree's plugins have answered so far (answered, in bytes) in its
// run.paused event: the bound on those bytes holds across resumes, and
// costs one field in a write the pause makes anyway. 0 keeps nothing.
func (j *Journal) PauseRoot(ctx context.Context, runID string, reqs []*Request, answered int64) error {
	ctx = undeferred(ctx)
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		if _, err := j.exec(ctx, tx, sqlDropOpenAsks, runID, string(RequestOpen)); err != nil {
			return err
		}
		addresses := make([]string, 0, len(reqs))
		for i, r := range reqs {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO requests (run_id, address, kind, request_digest, payload, state, seq) VALUES (?,?,?,?,?,?,?)`,
				runID, r.Address, r.Kind, r.RequestDigest, j.text(r.Payload), string(RequestOpen), i+1); err != nil {
				return err
			}
			addresses = append(addresses, r.Address)
		}
		if err := j.touch(ctx, tx, runID, StatePaused, now); err != nil {
			return err
		}
		data := map[string]any{"waiting": addresses}
		if answered > 0 {
			data[answeredBytesKey] = answered
		}
		return j.appendEvent(ctx, tx, runID, "run", EventRunPaused, data, now)
	})
}

// Requests lists the requests a run has recorded, open and answered.
func (a Asks) Requests(ctx context.Context, runID string) ([]*Request, error) {
	rows, err := a.j.db.QueryContext(ctx, `SELECT address, kind, request_digest, payload, state, seq FROM requests WHERE run_id = ? ORDER BY seq, address`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Request
	for rows.Next() {
		r := &Request{RunID: runID}
		var payload string
		if err := rows.Scan(&r.Address, &r.Kind, &r.RequestDigest, &payload, &r.State, &r.Seq); err != nil {
			return nil, err
		}
		r.Payload = raw(payload)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Decisions lists a run's admitted decisions by address.
func (a Asks) Decisions(ctx context.Context, runID string) (map[string]*Decision, error) {
	rows, err := a.j.query(ctx, sqlDecisionsOfRun, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*Decision{}
	for rows.Next() {
		d := &Decision{RunID: runID}
		var value string
		if err := rows.Scan(&d.Address, &d.Lane, &d.RequestDigest, &value, &d.Used, &d.RecordedAt); err != nil {
			return nil, err
		}
		d.Value = raw(value)
		out[d.Address] = d
	}
	return out, rows.Err()
}

// AdmitDecisions records decisions in one transition, before any is used: a
// decision for an address replaces one no step has used yet.
func (a Asks) AdmitDecisions(ctx context.Context, runID string, ds []*Decision) error {
	j := a.j
	ctx = undeferred(ctx)
	if len(ds) == 0 {
		return nil
	}
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		for _, d := range ds {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO decisions (run_id, address, lane, request_digest, value, used, recorded_at) VALUES (?,?,?,?,?,0,?)`,
				runID, d.Address, d.Lane, d.RequestDigest, j.text(d.Value), now); err != nil {
				return err
			}
			if err := j.appendEvent(ctx, tx, runID, "decisions", "decision.admitted", map[string]any{"address": d.Address, "lane": d.Lane, "request_digest": d.RequestDigest}, now); err != nil {
				return err
			}
		}
		return j.touch(ctx, tx, runID, "", now)
	})
}

// UseDecision marks a decision used and its request answered, together with
// the step it settled, as one transition.
func (a Asks) UseDecision(ctx context.Context, runID, address string, step *Step) error {
	j := a.j
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE decisions SET used = 1 WHERE run_id = ? AND address = ?`, runID, address); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE requests SET state = ? WHERE run_id = ? AND address = ?`, string(RequestAnswered), runID, address); err != nil {
			return err
		}
		if step != nil {
			var seq int64
			if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM steps WHERE run_id = ?`, runID).Scan(&seq); err != nil {
				return err
			}
			step.Seq = seq
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO steps (run_id, address, step_id, status, output, error, receipt_id, child_ref, seq) VALUES (?,?,?,?,?,?,?,?,?)`,
				runID, step.Address, step.StepID, step.Status, j.text(step.Output), j.text(step.Error), step.ReceiptID, string(step.ChildRef), seq); err != nil {
				return err
			}
		}
		if err := j.appendEvent(ctx, tx, runID, "decisions", "decision.used", map[string]any{"address": address}, now); err != nil {
			return err
		}
		return j.touch(ctx, tx, runID, StateRunning, now)
	})
}

// Stop marks a run (and every child of it still marked running) stopped
// where a signal left it; answered is what the tree's plugins have
// answered so far, kept as PauseRoot keeps it.
func (j *Journal) Stop(ctx context.Context, runID string, answered int64) error {
	ctx = undeferred(ctx)
	now := j.now()
	// Only the runs of the tree whose state may become stopped (running
	// ones: state.go) are stopped; a paused child stays paused.
	from := sources[StateStopped]
	return j.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT r.run_id FROM runs r JOIN tree t ON r.parent_run_id = t.id)
			UPDATE runs SET state = ?, updated_at = ?, version = version + 1 WHERE run_id IN (SELECT id FROM tree) AND state IN (?,?,?,?)`,
			runID, string(StateStopped), now, from[0], from[1], from[2], from[3]); err != nil {
			return err
		}
		data := map[string]any{}
		if answered > 0 {
			data[answeredBytesKey] = answered
		}
		return j.appendEvent(ctx, tx, runID, "run", EventRunStopped, data, now)
	})
}

// SetRunning marks a paused run as driven again.
func (j *Journal) SetRunning(ctx context.Context, runID string) error {
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		if err := j.touch(ctx, tx, runID, StateRunning, now); err != nil {
			return err
		}
		return j.appendEvent(ctx, tx, runID, "run", "run.resumed", map[string]any{}, now)
	})
}

// Seal records the run's end and the envelope it sealed with.
func (j *Journal) Seal(ctx context.Context, runID string, outcome seal.Outcome, reason seal.Reason, receiptID string, envelope json.RawMessage) error {
	return j.SealIndexed(ctx, runID, outcome, reason, receiptID, envelope, RootLine{})
}

// SealIndexed is Seal for a root run whose receipt's index line the store
// appended without flushing it: line, recorded in the same commit, is what
// PendingRootLines returns so a power cut that lost the line can be
// repaired (rootlines.go). A zero line records nothing more than Seal.
//
// steps are settled steps of the run not recorded yet: each is recorded
// first, exactly as RecordStep would, in the seal's own transaction (an
// effect-free run's last step, docs/decisions/journal.md, "One transaction for the
// last step and the seal").
func (j *Journal) SealIndexed(ctx context.Context, runID string, outcome seal.Outcome, reason seal.Reason, receiptID string, envelope json.RawMessage, line RootLine, steps ...*Step) error {
	ctx = undeferred(ctx)
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		for _, s := range steps {
			if err := j.recordStep(ctx, tx, s, now); err != nil {
				return err
			}
		}
		if err := j.ReceiptLog().recordRootLine(ctx, tx, runID, receiptID, line); err != nil {
			return err
		}
		from := sources[StateSealed]
		res, err := j.exec(ctx, tx, sqlSealRun,
			string(StateSealed), string(outcome), string(reason), receiptID, j.text(envelope), runID, from[0], from[1], from[2], from[3])
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return j.refusedTransition(ctx, tx, runID, StateSealed)
		}
		if _, err := j.exec(ctx, tx, sqlDropOpenAsks, runID, string(RequestOpen)); err != nil {
			return err
		}
		if err := j.touch(ctx, tx, runID, "", now); err != nil {
			return err
		}
		return j.appendEvent(ctx, tx, runID, "run", "run.sealed", map[string]any{"outcome": outcome, "seal_reason": reason, "receipt_id": receiptID}, now)
	})
}

// AppendEvent records one event on a stream.
func (j *Journal) AppendEvent(ctx context.Context, runID, stream, typ string, data any) error {
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error { return j.appendEvent(ctx, tx, runID, stream, typ, data, now) })
}

// AppendEventChecked records one event on a stream only when admit, given
// every event that stream of the run already holds, allows it: reading and
// appending are one IMMEDIATE transaction, so two callers (fan-out items,
// another process's turn call) can never both be admitted against the same
// prior state. admit's error is returned as is and nothing is recorded.
func (j *Journal) AppendEventChecked(ctx context.Context, runID, stream, typ string, data any, admit func(prior []Event) error) error {
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT seq, stream, type, data, at FROM events WHERE run_id = ? AND stream = ? ORDER BY seq`, runID, stream)
		if err != nil {
			return err
		}
		var prior []Event
		for rows.Next() {
			var e Event
			var data string
			if err := rows.Scan(&e.Seq, &e.Stream, &e.Type, &data, &e.At); err != nil {
				rows.Close()
				return err
			}
			e.Data = json.RawMessage(data)
			prior = append(prior, e)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if err := admit(prior); err != nil {
			return err
		}
		return j.appendEvent(ctx, tx, runID, stream, typ, data, now)
	})
}

// Events lists a run's events after a sequence number.
func (j *Journal) Events(ctx context.Context, runID string, after int64) ([]Event, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT seq, stream, type, data, at FROM events WHERE run_id = ? AND seq > ? ORDER BY seq`, runID, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var data string
		if err := rows.Scan(&e.Seq, &e.Stream, &e.Type, &data, &e.At); err != nil {
			return nil, err
		}
		e.Data = json.RawMessage(data)
		out = append(out, e)
	}
	return out, rows.Err()
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

// Events a run's checkpoints append on its run stream.
const (
	EventRunPaused  = "run.paused"
	EventRunStopped = "run.stopped"
)

// answeredBytesKey is the field of a root's run.paused and run.stopped
// events that keeps the bytes its tree's plugins answered.
const answeredBytesKey = "answered_bytes"

// AnsweredBytes is what the tree of root runID had answered at its last
// checkpoint (PauseRoot, Stop), 0 when none kept it. The count only ever
// grows while a run lives, so the largest kept is the latest.
func (j *Journal) AnsweredBytes(ctx context.Context, runID string) (int64, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT data FROM events WHERE run_id = ? AND stream = 'run' AND type IN (?, ?)`, runID, EventRunPaused, EventRunStopped)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var most int64
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return 0, err
		}
		var kept map[string]json.RawMessage
		if err := json.Unmarshal([]byte(data), &kept); err != nil {
			return 0, err
		}
		// A count the journal's scrubber rewrote (a delivered value that
		// happened to be these digits) is passed over: the others still
		// bound the run.
		var n int64
		if json.Unmarshal(kept[answeredBytesKey], &n) == nil {
			most = max(most, n)
		}
	}
	return most, rows.Err()
}
