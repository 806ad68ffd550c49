package journal

import (
	"context"
	"database/sql"
)

// Asks is the journal's record of what a paused run asks and what was
// answered: its requests (open and answered), and the decisions admitted
// for them and used. Pausing writes a run's requests as a transition of
// the run itself (Journal.Pause); everything else about them is here.
type Asks struct{ j *Journal }

// Asks returns the journal's request and decision records.
func (j *Journal) Asks() Asks { return Asks{j} }

// AddRequests opens more requests of a paused run beside the ones it waits
// on, as one transition: what a turn's call asks a person (ask_human) while
// the turn stays open. The run stays paused.
func (a Asks) AddRequests(ctx context.Context, runID string, reqs []*Request) error {
	j := a.j
	ctx = undeferred(ctx)
	now := j.now()
	return j.tx(ctx, func(tx *sql.Tx) error {
		var seq int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM requests WHERE run_id = ?`, runID).Scan(&seq); err != nil {
			return err
		}
		addresses := make([]string, 0, len(reqs))
		for i, r := range reqs {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO requests (run_id, address, kind, request_digest, payload, state, seq) VALUES (?,?,?,?,?,?,?)`,
				runID, r.Address, r.Kind, r.RequestDigest, j.text(r.Payload), string(RequestOpen), seq+int64(i)+1); err != nil {
				return err
			}
			addresses = append(addresses, r.Address)
		}
		if err := j.touch(ctx, tx, runID, StatePaused, now); err != nil {
			return err
		}
		return j.appendEvent(ctx, tx, runID, "run", "run.requests_added", map[string]any{"waiting": addresses}, now)
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
