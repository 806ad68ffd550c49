package sqlite

// The driver's statements: fixed SQL prepared once per connection, selected
// by purpose. No SQL is ever built from a request. ?1..?3 always address the
// stream: data_source_ref, resource, aggregate_id.
const (
	// A stream's head is its last event: one seek down the primary key.
	stmtHead = `SELECT version, event_type, event_digest, projection_digest, committed_at
FROM runx_store_events
WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id = ?3
ORDER BY version DESC LIMIT 1`

	// What an append decides on, in one statement: the head (tag 0) and the
	// event already committed under the idempotency key, if any (tag 1).
	stmtAppendState = `SELECT 0, version, event_digest, projection_digest, committed_at FROM (
  SELECT version, event_digest, projection_digest, committed_at FROM runx_store_events
  WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id = ?3
  ORDER BY version DESC LIMIT 1)
UNION ALL
SELECT 1, version, event_digest, projection_digest, committed_at FROM runx_store_events
WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id = ?3 AND idempotency_key = ?4`

	stmtByIdempotencyKey = `SELECT version, event_digest, projection_digest, committed_at
FROM runx_store_events
WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id = ?3 AND idempotency_key = ?4`

	stmtInsertEvent = `INSERT INTO runx_store_events
(data_source_ref, resource, aggregate_id, version, idempotency_key, event_type, event_digest, projection_digest, committed_at, event_json)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`

	// A page: read in the same transaction as the head, so one snapshot.
	// Both walk the primary key in order, with no sort.
	stmtPageForward = `SELECT version, idempotency_key, event_type, event_digest, projection_digest, committed_at, event_json
FROM runx_store_events
WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id = ?3 AND version > ?4
ORDER BY version ASC LIMIT ?5`

	stmtPageTail = `SELECT version, idempotency_key, event_type, event_digest, projection_digest, committed_at, event_json
FROM runx_store_events
WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id = ?3
ORDER BY version DESC LIMIT ?4`

	// Stream heads in key order: a loose index scan (each next key is one
	// seek past the last), then each key's last event, one seek each. It
	// costs two seeks per listed stream however long the streams are.
	stmtListHeads = `WITH RECURSIVE k(aggregate_id) AS (
  SELECT (SELECT aggregate_id FROM runx_store_events
          WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id > ?3
          ORDER BY aggregate_id LIMIT 1)
  UNION ALL
  SELECT (SELECT aggregate_id FROM runx_store_events
          WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id > k.aggregate_id
          ORDER BY aggregate_id LIMIT 1)
  FROM k WHERE k.aggregate_id IS NOT NULL
  LIMIT ?4)
SELECT e.aggregate_id, e.version, e.event_type, e.event_digest, e.projection_digest, e.committed_at
FROM k JOIN runx_store_events AS e
  ON e.data_source_ref = ?1 AND e.resource = ?2 AND e.aggregate_id = k.aggregate_id
  AND e.version = (SELECT max(version) FROM runx_store_events
                   WHERE data_source_ref = ?1 AND resource = ?2 AND aggregate_id = k.aggregate_id)
ORDER BY e.aggregate_id`
)
