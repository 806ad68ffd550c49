// Package agent is runx's managed agent: with a person's consent for one
// run (--drive), it works the run's agent turns itself against a configured
// model provider, one round at a time, within a visible budget.
//
// It owns no second turn machinery: a turn is read with Kernel.Turn, its
// tools are the calls kernel/mcp lists for turn_status, every call is
// admitted by Kernel.TurnCall (authority, floor, receipts) and the turn is
// answered through Kernel.Resume, bound to its request digest, so its output
// is checked against the step's contract exactly as a host's answer is.
//
// Each provider dialect (dialect_*.go) speaks its real wire format over
// net/http and encoding/json; there is no provider SDK. The package must not
// import plugins/.
package agent
