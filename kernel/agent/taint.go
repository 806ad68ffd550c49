package agent

import "github.com/runxhq/runx/kernel/credential"

// Redacted replaces a delivered credential wherever it would leave; the
// marker and the scrubbing are kernel/credential's, shared by every
// boundary.
const Redacted = credential.Redacted
