// Package script holds what a script step is to the kernel below the run
// engine: the worker's protocol (protocol.go: the record of settled
// requests it replays, the requests it waits on, its answer, an output
// past one answer joined from its parts and held to its digest), the step
// a listed call runs as, the references a step gives its script in place
// of inputs past 64 KiB (refs.go: kept as artifacts of the run, resolved
// in a call's input and in the script's output, read back by ctx.read
// held to their digest), and the step's record in the journal (Log: the settled requests read back in
// index order, the waits and reads it settles without running anything).
//
// It drives a script step (Drive, drive.go): the worker runs the script
// until every path forward waits on a request not yet recorded, and the
// requests it waits on are carried out, each a unit of the run, and
// recorded. It never imports kernel/run: what it needs of the run (the
// worker, units, requests, settling) it takes through the port this
// package declares (port.go), which the engine satisfies in
// kernel/run/scriptport.go.
package script
