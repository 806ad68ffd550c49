// Package readmodel is what a run reads back as: its record (runx
// history, the run.read tool), what it and its children wait on, and the
// payloads of those requests, a payload past RequestPayloadInlineMax kept
// as a project artifact and read back held to its size and digest; and
// the project's history (history.go: the sealed runs, the runs not
// sealed, and the receipt tree `runx verify` checks); and a method as it
// would run, read step by step with nothing run (inspect.go, `runx skill
// inspect`), through the Inspected port the engine satisfies
// (kernel/run/inspect.go).
//
// It sits below the run engine: it never imports kernel/run. The engine
// presents what a paused run waits on through it, and the Kernel's
// ReadRun and ReadRequestPayload (kernel/run/waiting.go), Verify,
// VerifyTarget, RunHistory and OpenRuns (kernel/run/queries.go) forward
// to it.
package readmodel
