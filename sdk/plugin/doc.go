// Package plugin is what a capability plugin author uses: hand-written Go
// types for the runx.plugin.v1 protocol, one Serve call that hides the
// go-plugin handshake and gRPC, and the client the kernel uses to talk to a
// served plugin.
//
// It must not import kernel packages: plugins and the kernel meet only here
// and on the wire.
package plugin
