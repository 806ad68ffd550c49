// Package script holds what a script step is to the kernel below the run
// engine: the worker's protocol (the record of settled requests it
// replays, the requests it waits on, its answer), the step a listed call
// runs as, and the references a step gives its script in place of inputs
// past 64 KiB (kept as artifacts of the run, resolved in a call's input
// and in the script's output, read back by ctx.read held to their digest).
//
// It never imports kernel/run: the engine drives a script step
// (kernel/run/script.go) and takes from here what is pure of it.
package script
