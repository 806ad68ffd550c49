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
