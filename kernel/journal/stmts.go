package journal

import (
	"context"
	"database/sql"
)

// The statements every run's transitions make: prepared once when the
// journal opens, since database/sql otherwise has SQLite parse each one
// again on every exec (a third of a one-step run's journal time, measured
// in docs/PERFORMANCE.md). They are prepared before any transaction holds
// the journal's one connection; a transaction then uses them on its own
// connection (sql.Tx.StmtContext), which prepares them again only if that
// connection was replaced.
const (
	sqlTouch          = `UPDATE runs SET updated_at = ?, version = version + 1 WHERE run_id = ?`
	sqlTouchState     = `UPDATE runs SET updated_at = ?, version = version + 1, state = ? WHERE run_id = ? AND state IN (?,?,?,?)`
	sqlAppendEvent    = `INSERT INTO events (run_id, seq, stream, type, data, at) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id = ?), ?, ?, ?, ?)`
	sqlNextStepSeq    = `SELECT COALESCE(MAX(seq), 0) + 1 FROM steps WHERE run_id = ?`
	sqlRecordStep     = `INSERT OR REPLACE INTO steps (run_id, address, step_id, status, output, error, receipt_id, child_ref, seq) VALUES (?,?,?,?,?,?,?,?,?)`
	sqlCreateRun      = `INSERT INTO runs (` + runColumns + `) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0)`
	sqlSealRun        = `UPDATE runs SET state = ?, outcome = ?, seal_reason = ?, receipt_id = ?, envelope = ? WHERE run_id = ? AND state IN (?,?,?,?)`
	sqlDropOpenAsks   = `DELETE FROM requests WHERE run_id = ? AND state = ?`
	sqlStepsOfRun     = `SELECT address, step_id, status, output, error, receipt_id, child_ref, seq FROM steps WHERE run_id = ? ORDER BY seq`
	sqlDecisionsOfRun = `SELECT address, lane, request_digest, value, used, recorded_at FROM decisions WHERE run_id = ?`
	sqlAddRootLine    = `INSERT OR REPLACE INTO root_lines (run_id, store, receipt_id, flushed, line_end) VALUES (?,?,?,?,?)`
	sqlPruneRootLines = `DELETE FROM root_lines WHERE store = ? AND line_end <= ?`
	sqlLogFile        = `INSERT INTO receipt_files (store, identity, name, bytes, line, hint) VALUES (?,?,?,?,?,?)`
)

var preparedStatements = []string{sqlTouch, sqlTouchState, sqlAppendEvent, sqlNextStepSeq, sqlRecordStep, sqlCreateRun, sqlSealRun, sqlDropOpenAsks,
	sqlStepsOfRun, sqlDecisionsOfRun, sqlAddRootLine, sqlPruneRootLines, sqlLogFile}

// prepare prepares the hot statements; called by Open, before any
// transaction.
func (j *Journal) prepare() error {
	j.stmts = make(map[string]*sql.Stmt, len(preparedStatements))
	for _, q := range preparedStatements {
		s, err := j.db.Prepare(q)
		if err != nil {
			return err
		}
		j.stmts[q] = s
	}
	return nil
}

// exec runs one of the journal's statements in tx, prepared when it is one
// of the hot ones.
func (j *Journal) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (sql.Result, error) {
	if s := j.stmts[q]; s != nil {
		return tx.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, q, args...)
}

// queryRow is exec's QueryRowContext.
func (j *Journal) queryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) *sql.Row {
	if s := j.stmts[q]; s != nil {
		return tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, q, args...)
}

// query runs one of the journal's reads outside a transaction.
func (j *Journal) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if s := j.stmts[q]; s != nil {
		return s.QueryContext(ctx, args...)
	}
	return j.db.QueryContext(ctx, q, args...)
}
