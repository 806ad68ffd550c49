// Package conformance is the suite any runx plugin binary must pass, run
// from the author's own test:
//
//	func TestConformance(t *testing.T) {
//		conformance.RunPlugin(t, conformance.Binary{Path: "./runx-plugin-echo"},
//			conformance.Payload("echo.shout", func(s string) any { return map[string]string{"message": s} }, true))
//	}
//
// It starts the binary as runx does (magic cookie, protocol versions, an
// empty environment besides what Binary.Env names), reads its handshake
// itself and attaches to it over gRPC, then proves: Describe is well formed
// (plugin.CheckInfo) and every schema compiles; an unknown capability is
// refused with capability_not_found; Cancel answers; every capability gives
// a typed answer to empty and malformed inputs; a credential planted in the
// call never appears in an answer's message or evidence, nor in the
// plugin's logs; payloads of 64 MiB cross the wire where a capability is
// named for them; nothing but the handshake reaches stdout; and a plugin
// killed mid-session fails its next call with a gRPC status, not a hang.
//
// The store driver suite is sdk/conformance/store.
package conformance
