package journal

import (
	"context"
	"database/sql"
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

// Events a run's checkpoints append on its run stream.
const (
	EventRunPaused  = "run.paused"
	EventRunStopped = "run.stopped"
)

// answeredBytesKey is the field that keeps the bytes a tree's plugins
// answered: in a root's run.paused and run.stopped events, and in the
// event of every step any run of the tree recorded (recordStep).
const answeredBytesKey = "answered_bytes"

// sqlAnsweredBytes is the largest count the tree of a root kept, in its
// checkpoints and its step events. Each document is parsed once, and only
// one that names the field; a count the journal's scrubber rewrote (a
// delivered value that happened to be these digits) is no integer and is
// passed over: the others still bound the run.
const sqlAnsweredBytes = `WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT r.run_id FROM runs r JOIN tree t ON r.parent_run_id = t.id)
	SELECT COALESCE(MAX(n), 0) FROM (SELECT json_extract(data, '$.` + answeredBytesKey + `') AS n FROM events
		WHERE run_id IN (SELECT id FROM tree) AND (stream = 'steps' OR stream = 'run' AND type IN (?, ?)) AND instr(data, '"` + answeredBytesKey + `":') > 0)
	WHERE typeof(n) = 'integer'`

// AnsweredBytes is what the tree of root runID had answered at its last
// checkpoint (PauseRoot, Stop) or at the last unit any of its runs
// recorded, 0 when none kept it: a crash loses the count of the units in
// flight only. The count only ever grows while a run lives, so the
// largest kept is the latest.
func (j *Journal) AnsweredBytes(ctx context.Context, runID string) (int64, error) {
	var most int64
	err := j.db.QueryRowContext(ctx, sqlAnsweredBytes, runID, EventRunPaused, EventRunStopped).Scan(&most)
	return most, err
}
