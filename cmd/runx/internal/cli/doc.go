// Package cli holds what every runx command shares: the I/O streams, the exit
// codes of docs/cli.md, the kernel factory and the JSON/human presenters.
// Commands parse and present; the kernel does the work.
package cli
