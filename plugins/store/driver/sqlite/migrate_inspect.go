package sqlite

import (
	"context"
	"strings"
)

// schemaLook is what a look at a file's schema finds, without changing it.
type schemaLook struct {
	State         State
	ApplicationID int64
	UserVersion   int64
	Tables        []string
	// Fingerprint is FingerprintDefinition over the marks and every table's
	// column list: two files with the same fingerprint have the same shape,
	// so a backup can be checked against its original and a proof names the
	// exact legacy variant it migrated (with or without heads, the heads'
	// projection column, the ledger).
	Fingerprint string
}

func lookAt(ctx context.Context, q Queryer) (schemaLook, error) {
	var l schemaLook
	var err error
	if l.State, err = Inspect(ctx, q); err != nil {
		return l, err
	}
	if err := q.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&l.ApplicationID); err != nil {
		return l, err
	}
	if err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&l.UserVersion); err != nil {
		return l, err
	}
	if l.Tables, err = tableNames(ctx, q); err != nil {
		return l, err
	}
	f := newFrameHash(FingerprintDefinition)
	f.field("application_id")
	f.int(l.ApplicationID)
	f.field("user_version")
	f.int(l.UserVersion)
	for _, t := range l.Tables {
		cols, err := columns(ctx, q, t)
		if err != nil {
			return l, err
		}
		f.field("table")
		f.field(t)
		f.int(int64(len(cols)))
		for _, c := range cols {
			f.field(c)
		}
	}
	l.Fingerprint = f.sum()
	return l, nil
}

// legacyColumns are the event table's columns in the recognized variant.
func legacyColumns(s State) []string {
	if s == StateLegacyScoped {
		return legacyScopedEvents
	}
	return legacyUnscopedEvents
}

// legacySummary is what the original file holds, read before anything is
// written: the proof's "before".
type legacySummary struct {
	Events   int64
	Streams  int64 // with the supplied source standing in for a missing one
	Unscoped int64 // rows without a source, which the migration assigns it
	Digest   string
}

// legacySourceExpr is a row's source after the migration: its own, or the
// supplied one (?1) where it had none. A source that is not text is NULL,
// which the build refuses.
func legacySourceExpr(s State) string {
	if s != StateLegacyScoped {
		return `?1`
	}
	return `(CASE WHEN data_source_ref IS NULL OR data_source_ref = '' THEN ?1
  WHEN typeof(data_source_ref) = 'text' THEN data_source_ref END)`
}

func legacyUnscopedExpr(s State) string {
	if s != StateLegacyScoped {
		return `1`
	}
	return `(data_source_ref IS NULL OR data_source_ref = '')`
}

// summarizeLegacy digests the legacy event table (LegacyContentDefinition)
// and counts its rows and streams. Column names come from the recognized
// variant, never from the file; order is SQLite's order of stored values
// under the BINARY collation whatever collation a legacy column declared,
// so the same rows give the same digest in the original and in its backup.
func summarizeLegacy(ctx context.Context, q Queryer, s State, source string) (legacySummary, error) {
	var sum legacySummary
	cols := legacyColumns(s)
	quoted := make([]string, len(cols))
	order := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = "quote(" + c + ")"
		order[i] = c + " COLLATE BINARY"
	}
	rows, err := q.QueryContext(ctx, `SELECT `+strings.Join(quoted, ", ")+` FROM runx_events ORDER BY `+strings.Join(order, ", "))
	if err != nil {
		return sum, err
	}
	defer rows.Close()
	f := newFrameHash(LegacyContentDefinition)
	f.field("columns")
	f.int(int64(len(cols)))
	for _, c := range cols {
		f.field(c)
	}
	values := make([]string, len(cols))
	dest := make([]any, len(cols))
	for i := range values {
		dest[i] = &values[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return sum, err
		}
		f.field("row")
		for _, v := range values {
			f.field(v)
		}
		sum.Events++
	}
	if err := rows.Err(); err != nil {
		return sum, err
	}
	f.field("end")
	f.int(sum.Events)
	sum.Digest = f.sum()
	err = q.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT DISTINCT `+legacySourceExpr(s)+
		`, resource COLLATE BINARY, aggregate_id COLLATE BINARY FROM runx_events)`, source).Scan(&sum.Streams)
	if err != nil {
		return sum, err
	}
	err = q.QueryRowContext(ctx, `SELECT count(*) FROM runx_events WHERE `+legacyUnscopedExpr(s)).Scan(&sum.Unscoped)
	return sum, err
}
