// Package host starts, supervises and talks to capability plugins. It finds
// a plugin by name (first-party ones by re-executing the runx binary,
// third-party ones as pinned binaries), negotiates the protocol version,
// starts each lazily on first use, reuses it for the life of the kernel
// process, and replaces one that crashed, timed out or broke the protocol.
//
// It knows capabilities only by their Describe answers and never imports a
// plugin's implementation.
package host
