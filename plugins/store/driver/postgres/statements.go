package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Named statements, prepared on every connection as it opens and executed
// by name. {schema} is the quoted schema name, fixed at Open; requests only
// ever bind parameters.
const (
	stmtAppend = "runx_store_append"
	stmtByKey  = "runx_store_by_key"
	stmtHead   = "runx_store_head"
	stmtPageFw = "runx_store_page_forward"
	stmtPageTl = "runx_store_page_tail"
	stmtList   = "runx_store_list_heads"
	stmtFence  = "runx_store_fence"
	stmtGone   = "runx_store_backend_gone"
)

var statements = map[string]string{
	stmtAppend: `SELECT o_outcome, o_version, o_projection, o_committed_at, o_current
FROM {schema}.runx_store_append($1, $2, $3, $4, $5, $6, $7, $8, $9)`,

	stmtByKey: `SELECT version, event_digest, projection_digest, committed_at
FROM {schema}.runx_store_events
WHERE data_source_ref = $1 AND resource = $2 AND aggregate_id = $3 AND idempotency_key = $4`,

	stmtHead: `SELECT version, event_type, event_digest, projection_digest, committed_at
FROM {schema}.runx_store_heads
WHERE data_source_ref = $1 AND resource = $2 AND aggregate_id = $3`,

	// A page, sent in one round trip after the head (see Read).
	stmtPageFw: `SELECT version, idempotency_key, event_type, event_digest, projection_digest, committed_at, event_json
FROM {schema}.runx_store_events
WHERE data_source_ref = $1 AND resource = $2 AND aggregate_id = $3 AND version > $4
ORDER BY version ASC LIMIT $5`,

	stmtPageTl: `SELECT version, idempotency_key, event_type, event_digest, projection_digest, committed_at, event_json
FROM {schema}.runx_store_events
WHERE data_source_ref = $1 AND resource = $2 AND aggregate_id = $3
ORDER BY version DESC LIMIT $4`,

	stmtList: `SELECT aggregate_id, version, event_type, event_digest, projection_digest, committed_at
FROM {schema}.runx_store_heads
WHERE data_source_ref = $1 AND resource = $2 AND aggregate_id > $3
ORDER BY aggregate_id ASC LIMIT $4`,

	// Ends the backend that ran an append whose answer was lost and waits
	// for it to be gone: its transaction has then committed or rolled back
	// for good, so a readback by key after it is proof either way.
	stmtFence: `SELECT pg_terminate_backend($1, 5000)`,
	stmtGone:  `SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)`,
}

func prepareStatements(schema string) func(ctx context.Context, conn *pgx.Conn) error {
	ident := pgx.Identifier{schema}.Sanitize()
	return func(ctx context.Context, conn *pgx.Conn) error {
		for name, sql := range statements {
			if _, err := conn.Prepare(ctx, name, strings.ReplaceAll(sql, "{schema}", ident)); err != nil {
				return err
			}
		}
		return nil
	}
}
