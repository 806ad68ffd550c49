// Package jsworker is the first-party plugin that runs deterministic
// JavaScript modules (`tool: {module: x.mjs}` steps, js.module) and scripts
// (`script: {module: x.mjs}` steps, js.script) in its own process. A script
// never calls the kernel from here: each js.script invocation replays the
// step's record and answers done, or suspended on the requests it waits on,
// which the kernel admits and carries out before invoking it again. It
// receives the module closure in memory, never a path, and hands it to the
// engine, which bundles, polices imports and runs each call in a fresh
// context. A module's output depends on its closure and input alone, on
// every run and machine: Date reads ModuleEpoch (the Unix epoch), never the
// run's or the host's clock, and Math.random is seeded from the closure's
// digest and the input's (determinism.go); require, module and exports do
// not exist. A script reads the run's clock (one value for every
// invocation of the run, so its waits mean the run's time), with the same
// seeding. A timeout, memory fault or crash fails the call and asks the
// kernel to discard this process.
//
// It imports the SDK and its own engine only, never kernel packages.
package jsworker
