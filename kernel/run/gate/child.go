package gate

import (
	"encoding/json"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/sdk/canon"
)

// ChildContext is the digest of what a child run is started under besides
// its package and inputs: the authority its parent's record holds (raw) and
// the one its step runs under (eff, as the child takes it), the standing
// approvals in force, its act and its actor. Two children under the same
// one are the same computation over the same inputs.
func ChildContext(raw json.RawMessage, eff authority.Effective, standing []authority.StandingApproval, act, actor string) (string, error) {
	hostDigest, _ := Digest(raw)
	return canon.Digest(map[string]any{
		"authority_digest": hostDigest,
		"effective":        authority.ForChild(eff),
		"standing":         standing,
		"act":              act,
		"actor":            actor,
	})
}
