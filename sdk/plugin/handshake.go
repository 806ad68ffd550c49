package plugin

import (
	goplugin "github.com/hashicorp/go-plugin"
)

// ProtocolVersion is the wire protocol's major version, runx.plugin.v1. A
// test checks it against the .proto package name.
const ProtocolVersion = 1

// PluginSetKey names the one plugin every runx plugin process serves in
// go-plugin's plugin set; a host dispenses it.
const PluginSetKey = "capability"

// Handshake is shared by the kernel and every plugin. The magic cookie only
// stops a plugin binary from being run by hand by mistake; it is not
// authentication.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "RUNX_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "runx.plugin.v1.b3f6c2a1d9e84e57",
}

// MaxChunkBytes bounds each streamed input or output frame, so payloads of
// any size pass under gRPC's per-message limit.
const MaxChunkBytes = 2 << 20

// MaxMessageBytes is the gRPC message cap on both ends: one chunk plus room
// for the envelope and the result frame, and nothing near the default 4 MiB
// receive limit being hit by a well-formed frame.
const MaxMessageBytes = MaxChunkBytes + 1<<20

// MaxPayloadBytes bounds one call's whole input or output. Capabilities set
// their own narrower limits; this is the transport's ceiling.
const MaxPayloadBytes = 256 << 20
