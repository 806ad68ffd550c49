package journal

import (
	"context"
	"database/sql"
	"encoding/json"
)

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

func (j *Journal) appendEvent(ctx context.Context, tx *sql.Tx, runID, stream, typ string, data any, now string) error {
	body, err := json.Marshal(data)
	if err != nil {
		return err
	}
	_, err = j.exec(ctx, tx, sqlAppendEvent, runID, runID, stream, typ, j.text(body), now)
	return err
}
