package journal

// schemaVersion is recorded in user_version; a database from a newer runx is
// refused rather than guessed at.
const schemaVersion = 1

const schema = `
CREATE TABLE IF NOT EXISTS runs (
  run_id          TEXT PRIMARY KEY,
  parent_run_id   TEXT NOT NULL DEFAULT '',
  parent_address  TEXT NOT NULL DEFAULT '',
  skill_name      TEXT NOT NULL,
  method          TEXT NOT NULL,
  package_dir     TEXT NOT NULL,
  package_digest  TEXT NOT NULL,
  closure_digest  TEXT NOT NULL,
  authority       TEXT NOT NULL,
  inputs          TEXT NOT NULL,
  act             TEXT NOT NULL DEFAULT '',
  state           TEXT NOT NULL,
  outcome         TEXT NOT NULL DEFAULT '',
  seal_reason     TEXT NOT NULL DEFAULT '',
  receipt_id      TEXT NOT NULL DEFAULT '',
  envelope        TEXT NOT NULL DEFAULT '',
  started_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  version         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_parent ON runs(parent_run_id, parent_address);
-- Reuse candidates (ReuseCandidates): neither column changes after a run
-- is created, so the index costs one entry per run and no update.
CREATE INDEX IF NOT EXISTS runs_closure ON runs(closure_digest, method);
CREATE TABLE IF NOT EXISTS steps (
  run_id      TEXT NOT NULL,
  address     TEXT NOT NULL,
  step_id     TEXT NOT NULL,
  status      TEXT NOT NULL,
  output      TEXT NOT NULL DEFAULT '',
  error       TEXT NOT NULL DEFAULT '',
  receipt_id  TEXT NOT NULL DEFAULT '',
  child_ref   TEXT NOT NULL DEFAULT '',
  seq         INTEGER NOT NULL,
  PRIMARY KEY (run_id, address)
);
-- A step's seq is the run's greatest plus one (sqlNextStepSeq): without
-- this index that MAX reads every step row of the run, so recording the
-- n-th step cost O(n) and a run of n steps O(n^2).
CREATE INDEX IF NOT EXISTS steps_seq ON steps(run_id, seq);
CREATE TABLE IF NOT EXISTS requests (
  run_id          TEXT NOT NULL,
  address         TEXT NOT NULL,
  kind            TEXT NOT NULL,
  request_digest  TEXT NOT NULL,
  payload         TEXT NOT NULL,
  state           TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  PRIMARY KEY (run_id, address)
);
-- As steps_seq, for the requests a pause records.
CREATE INDEX IF NOT EXISTS requests_seq ON requests(run_id, seq);
CREATE TABLE IF NOT EXISTS decisions (
  run_id          TEXT NOT NULL,
  address         TEXT NOT NULL,
  lane            TEXT NOT NULL,
  request_digest  TEXT NOT NULL,
  value           TEXT NOT NULL,
  used            INTEGER NOT NULL DEFAULT 0,
  recorded_at     TEXT NOT NULL,
  PRIMARY KEY (run_id, address)
);
CREATE TABLE IF NOT EXISTS operation_keys (
  provider_key   TEXT PRIMARY KEY,
  operation      TEXT NOT NULL,
  body_digest    TEXT NOT NULL,
  binding        TEXT NOT NULL,
  state          TEXT NOT NULL,
  run_id         TEXT NOT NULL,
  address        TEXT NOT NULL,
  response       TEXT NOT NULL DEFAULT '',
  receipt_id     TEXT NOT NULL DEFAULT '',
  plan_digest    TEXT NOT NULL DEFAULT '',
  attempts       INTEGER NOT NULL DEFAULT 0,
  first_sent_at  TEXT NOT NULL DEFAULT '',
  updated_at     TEXT NOT NULL
);
-- Root index lines not yet known durable (rootlines.go): one row per sealed
-- root run whose line the receipt store appended after its flush, pruned
-- when a later seal's flush covers it, so the table holds a few rows.
CREATE TABLE IF NOT EXISTS root_lines (
  run_id      TEXT PRIMARY KEY,
  store       TEXT NOT NULL,
  receipt_id  TEXT NOT NULL,
  flushed     INTEGER NOT NULL,
  line_end    INTEGER NOT NULL
);
-- The write-ahead log of receipt files (filelog.go): each receipt file the
-- store wrote without a flush, logged in the first commit after the write,
-- so the commit of any record naming it can restore it after a power cut;
-- deleted once one syncfs of the store made the logged files durable.
CREATE TABLE IF NOT EXISTS receipt_files (
  seq       INTEGER PRIMARY KEY AUTOINCREMENT,
  store     TEXT NOT NULL,
  identity  TEXT NOT NULL,
  name      TEXT NOT NULL,
  bytes     BLOB NOT NULL,
  line      BLOB NOT NULL,
  hint      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  run_id  TEXT NOT NULL,
  seq     INTEGER NOT NULL,
  stream  TEXT NOT NULL,
  type    TEXT NOT NULL,
  data    TEXT NOT NULL,
  at      TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`
