package engine

import "time"

// Runtime-owned ceilings of the deterministic module boundary
// (docs/decisions/scripts-and-js.md, "JavaScript worker"). A package or
// runner may narrow a limit, never widen it; the engine enforces these
// values and nothing larger.
const (
	// MaxSourceBytes bounds the module closure: the sum of every file's bytes.
	MaxSourceBytes = 4 << 20
	// MaxInputBytes bounds the JSON input document handed to a call.
	MaxInputBytes = 4 << 20
	// MaxOutputBytes bounds the JSON document a call returns.
	MaxOutputBytes = 4 << 20
	// MaxScriptOutputBytes bounds a script's output: past the 4 MiB one
	// answer of the worker carries, it comes to the kernel in parts, so it
	// is bounded only well inside the worker's 64 MiB heap, which holds
	// the value, its JSON and what built them.
	MaxScriptOutputBytes = 24 << 20
	// MaxHeapBytes bounds how far the Go heap may grow during one call.
	MaxHeapBytes = 64 << 20
	// MaxStackBytes is the JavaScript stack ceiling. goja limits call depth,
	// not bytes, so the engine enforces it as MaxCallDepth.
	MaxStackBytes = 4 << 20
	// MaxCallDepth is MaxStackBytes expressed as goja frames. A frame of a
	// small function measured about 620 bytes of Go heap (frame, arguments
	// and value stack), so 6,500 frames is roughly 4 MiB.
	MaxCallDepth = 6500
	// MaxQueuedJobs bounds the promise jobs waiting to run at once.
	MaxQueuedJobs = 4096
	// DefaultTimeout is the wall time a call gets when the runner names none.
	DefaultTimeout = 2 * time.Second
	// MinTimeout and MaxTimeout bound the wall time a runner may select.
	MinTimeout = 1 * time.Second
	MaxTimeout = 30 * time.Second
	// MaxMessageBytes bounds an error message, which may quote module text.
	MaxMessageBytes = 4 << 10
	// MaxNestingDepth bounds how deeply the input, the output and a string
	// handed to JSON.parse may nest. The engine's JSON walkers and goja's
	// JSON.parse recurse on the Go stack, and an overflowing Go stack kills
	// the process rather than panicking. encoding/json uses the same bound.
	MaxNestingDepth = 10000
	// MaxScriptCalls is the kernel's ceiling on a script step's max_calls:
	// the ctx.call and ctx.read requests of one step, across its replays.
	MaxScriptCalls = 10000
)

// Derived ceilings.
const (
	// maxArrayElements is the longest array that fits in MaxHeapBytes at 16
	// bytes (one goja.Value) an element. A native builtin asked to materialise
	// more is refused before it allocates.
	maxArrayElements = MaxHeapBytes / 16
	// maxStringUnits is the longest string that fits in MaxHeapBytes at two
	// bytes a UTF-16 unit.
	maxStringUnits = MaxHeapBytes / 2
	// heapSampleInterval is how often the watchdog reads the heap.
	heapSampleInterval = 5 * time.Millisecond
	// stopGrace is how long Run waits for an interrupted VM to unwind. goja
	// only checks for interrupts between instructions, so a native builtin
	// looping over a huge array-like can outlive it; Run then answers anyway
	// and asks for the process to be discarded.
	stopGrace = 250 * time.Millisecond
)
