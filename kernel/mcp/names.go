package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/runxhq/runx/sdk/boundedre"
)

// MaxToolName is the longest tool name runx gives: strict clients accept
// ^[a-zA-Z0-9_-]{1,64}$ for the whole name, and some prefix it with their
// own (Claude Code's mcp__<server>__), so 16 characters are left for that.
const MaxToolName = 48

var toolNameInvalid = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// ValidToolName is the pattern strict clients hold a tool name to.
var ValidToolName = boundedre.MustCompile(`^[a-zA-Z0-9_-]+$`, 1, 64)

// toolName makes a name valid for strict clients from a skill's name and,
// for a method other than the one it is offered by default, the method's:
// runs of other characters become one '_', and a name past MaxToolName keeps
// its start and ends in a digest of the whole, so two long names stay apart.
func toolName(parts ...string) string {
	n := toolNameInvalid.ReplaceAllString(strings.Join(parts, "_"), "_")
	n = strings.Trim(n, "_")
	if n == "" {
		n = "skill"
	}
	if len(n) > MaxToolName {
		sum := sha256.Sum256([]byte(strings.Join(parts, "#")))
		n = strings.TrimRight(n[:MaxToolName-9], "_-") + "_" + hex.EncodeToString(sum[:4])
	}
	return n
}
