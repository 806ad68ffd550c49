// Package engine runs deterministic JavaScript modules: the
// `tool: { module: x.mjs }` steps of a runx package. It is a pure Go library;
// the jsworker plugin wraps it in a supervised process and speaks the plugin
// protocol, the engine does neither.
//
// What it owns:
//
//   - Bundle: the module closure arrives in memory (Source), never as a
//     path. esbuild bundles it through a plugin that serves only those files;
//     every import must be a normalised relative .js/.mjs path that stays in
//     the package (bare specifiers, node: and other builtins, URLs, absolute
//     paths, escapes, other extensions, import() and require are refused
//     with typed codes). The bundle is compiled once and cached by the
//     closure's digest.
//   - Run: each call gets a fresh goja runtime with a fixed clock, a seeded
//     Math.random, a bounded stack, and one frozen host global, Runx (see
//     HelperNames). The default export receives the JSON input and
//     { environment } and must answer a plain JSON object, or a promise of
//     one.
//   - RunScript: a `script: { module: x.mjs }` step, run by suspend and
//     replay (script.go). The default export gets (input, ctx), ctx a frozen
//     { environment, call, read, wait }. The worker never calls the kernel:
//     the script runs until every path forward waits on a request the
//     record does not hold, and RunScript returns those requests; the kernel
//     carries them out and invokes it again with the longer record, which
//     the replay answers from, checking each request against the one
//     recorded at its index.
//   - The ceilings in limits.go: source, input, output, heap, stack, wall
//     time, promise jobs, nesting, script calls.
//
// Authority: none. A module has no filesystem, network, process,
// environment, host clock or host randomness, because the runtime has no
// API for any of them: no console, require, process, timers, fetch, eval or
// Function constructor. The engine itself reads no files (esbuild sees only
// an in-memory namespace), opens no sockets, starts no processes and reads
// no environment variables; its only inputs are the Source and the Call.
//
// What the host process must do, because the engine cannot from inside:
//
//   - Discard the process when an *Error says Discard. A builtin that loops
//     in Go over a huge array-like ignores goja's interrupt; Run still
//     answers at the deadline, but the abandoned goroutine runs on, and may
//     keep allocating, until the process exits.
//   - Run with time.Local set to UTC (TZ=UTC). goja's local-time Date
//     methods (getHours, toString, ...) read the process's time zone.
//   - Prefer one call at a time per process: the heap ceiling is measured as
//     the growth of the process's Go heap during the call, so concurrent
//     calls are charged for each other's allocations.
//
// Imports: the standard library, goja, esbuild, and gowebpki/jcs, the RFC
// 8785 canonicaliser the kernel digests with, so a script request's digest
// here and the kernel's agree byte for byte. Never kernel packages or the
// SDK; the plugin adapts this package to the protocol.
package engine
