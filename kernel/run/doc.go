// Package run drives a run: it admits a resolved method, materialises each
// step's inputs, dispatches the step to its capability through the plugin
// host, records what happened, and seals the run with a signed receipt tree.
//
// Pure decisions (reference resolution, result selection) live in files of
// their own with no I/O. This package reaches capabilities only through the
// Invoker interface and never imports a plugin.
package run
