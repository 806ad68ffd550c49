// Package native holds the kernel's own side of tools: the tools the
// kernel answers itself, from state no plugin may hold (run records,
// receipts, the invocation's admitted metadata), and what the kernel reads
// of a process tool's call and answer (its exact argv, its exit, the end of
// what it printed).
//
// It sits below the run engine: it never imports kernel/run. What a tool
// needs of the run calling it is the Run port this package declares, which
// the engine satisfies (kernel/run/nativeport.go). A tool is known by its
// one typed description (sdk.Definition), as every capability is.
package native
