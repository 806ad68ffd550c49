// Package journal keeps durable run records in .runx/state.sqlite: runs,
// their steps, the requests a paused run waits on, the decisions admitted
// for them, and events by stream. Every recorded transition is one SQLite
// transaction in WAL mode, the WAL synced after its commit (walsync.go)
// unless it is Deferred, so a decision admitted before a crash is there for
// the run's next driver.
//
// It also owns the per-run driver lock: one process drives a run at a time.
//
// A run's own records and transitions are Journal's: records.go (runs and
// steps), pause.go (pause, stop and resume), seal.go, events.go. Other
// concerns are named parts reached from it: Asks (asks.go), what a paused
// run asks and the decisions admitted for it; OperationKeys (opkeys.go),
// the custody of effects sent under a provider's idempotency key; and
// ReceiptLog (filelog.go, rootlines.go), the receipt files and index lines
// each commit logs until the receipt store has made them durable.
package journal
