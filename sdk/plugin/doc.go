// Package plugin is what a capability plugin author uses: hand-written Go
// types for the runx.plugin.v1 protocol (capability definitions, calls,
// results, change sets), the typed constants of its vocabularies, CheckInfo
// for a Describe answer, and one Serve call that hides the go-plugin
// handshake and gRPC. The host side (starting a plugin, its client) is
// sdk/pluginhost; the in-process test harness is sdk/plugin/plugintest.
//
// It must not import kernel packages: plugins and the kernel meet only here
// and on the wire.
package plugin
