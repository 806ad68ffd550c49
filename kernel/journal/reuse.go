package journal

import (
	"context"
	"database/sql"
	"strings"

	"github.com/runxhq/runx/kernel/contract/seal"
)

// ReuseCandidates lists the sealed, completed runs of one method of one
// package closure, newest first, each with the context digest its
// run.started event recorded (empty when it recorded none): the managed
// sources a skill call's reuse may name. The caller compares inputs and
// context; the journal only narrows by what is indexed cheaply.
func (j *Journal) ReuseCandidates(ctx context.Context, closureDigest, method string, limit int) ([]*Run, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT `+prefixed("r.", runColumns)+`,
		COALESCE((SELECT json_extract(e.data, '$.context_digest') FROM events e
		          WHERE e.run_id = r.run_id AND e.type = 'run.started' ORDER BY e.seq LIMIT 1), '')
		FROM runs r WHERE r.closure_digest = ? AND r.method = ? AND r.state = ? AND r.outcome = ?
		ORDER BY r.updated_at DESC, r.run_id LIMIT ?`, closureDigest, method, string(StateSealed), string(seal.OutcomeCompleted), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		var contextDigest sql.NullString
		r, err := scanRunWith(rows, &contextDigest)
		if err != nil {
			return nil, err
		}
		r.ContextDigest = contextDigest.String
		out = append(out, r)
	}
	return out, rows.Err()
}

// prefixed qualifies each column of a list with a table alias.
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, c := range parts {
		parts[i] = alias + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
