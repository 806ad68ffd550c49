// Package jsworker is the first-party plugin that runs deterministic
// JavaScript modules (`tool: {module: x.mjs}` steps) in its own process. It
// receives the module closure in memory, never a path, and hands it to the
// engine, which bundles, polices imports and runs each call in a fresh
// context with a fixed clock and seeded randomness. A timeout, memory fault
// or crash fails the call and asks the kernel to discard this process.
//
// It imports the SDK and its own engine only, never kernel packages.
package jsworker
