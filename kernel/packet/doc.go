// Package packet is the kernel's packet registry: the packet schemas a run
// knows (runx.verdict.v1, acme.report.v1, ...), each a JSON Schema under a
// versioned id, and the rules by which a step's value becomes a project
// artifact of its packet and a reference to one becomes an input again.
//
// The registry is extended by description only: the kernel's own contract
// packets, a plugin's Describe answer (its packets) and a package's
// declared schemas each register what they describe; no first-party
// plugin, capability or package is named here. Two descriptions of one id
// must be the same schema, or the second is refused.
//
// It imports the schema checker, canonical JSON and the artifact store,
// never kernel/run: the engine and its step packages call it.
package packet
