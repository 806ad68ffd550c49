package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// A connector whose capabilities hold the private data role keeps the
// person's own data (sdk.RolePrivateData): every call on it needs a term,
// its terms may carry bounds, and an append to a said: stream changes
// nothing. The kernel knows it by that role alone, never by its name.

// privateConnector reports whether a connector's description holds the
// private data role.
func privateConnector(info *sdk.Info) bool {
	return info != nil && slices.ContainsFunc(info.Capabilities, func(d sdk.Definition) bool { return d.HasRole(sdk.RolePrivateData) })
}

// maxBoundStreams bounds a term's streams list.
const maxBoundStreams = 64

// privateBounds reads a private connector's term bounds: exactly
// {"streams": [...]}, each said:<name> or observed:<name>, or said:* or
// observed:* for every stream of that kind.
func privateBounds(raw json.RawMessage) ([]string, error) {
	var b map[string]json.RawMessage
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("are not an object")
	}
	for k := range b {
		if k != "streams" {
			return nil, fmt.Errorf("%q is no bound of a private connector; its one bound is streams", k)
		}
	}
	var streams []string
	if err := json.Unmarshal(b["streams"], &streams); err != nil || len(streams) == 0 || len(streams) > maxBoundStreams {
		return nil, fmt.Errorf("streams must list 1 to %d stream names (said:<name>, observed:<name>, said:*, observed:*)", maxBoundStreams)
	}
	for _, s := range streams {
		kind, name, ok := privateStream(s)
		if !ok && !(kind != "" && name == "*") {
			return nil, fmt.Errorf("streams: %q is not said:<name>, observed:<name>, said:* or observed:*", s)
		}
	}
	return streams, nil
}

// privateStream splits a stream name into its kind (said: or observed:)
// and name; ok when the name is one the store can hold.
func privateStream(s string) (kind, name string, ok bool) {
	for _, k := range []string{sdk.PrivateSaid, sdk.PrivateObserved} {
		if rest, found := strings.CutPrefix(s, k); found {
			return k, rest, streamName(rest)
		}
	}
	return "", "", false
}

// streamName accepts 1..96 letters, digits, '.', '_' and '-', starting with
// a letter or digit.
func streamName(s string) bool {
	if s == "" || len(s) > 96 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// streamCovered reports whether a term's bounds cover the stream a call
// names (its resource input); a term with no bounds covers every stream.
func streamCovered(bounds json.RawMessage, inputs map[string]any) bool {
	if len(bounds) == 0 {
		return true
	}
	streams, err := privateBounds(bounds)
	resource, _ := inputs["resource"].(string)
	if err != nil || resource == "" {
		return false
	}
	return slices.ContainsFunc(streams, func(p string) bool {
		return p == resource || strings.HasSuffix(p, ":*") && strings.HasPrefix(resource, strings.TrimSuffix(p, "*"))
	})
}

// coverNote says, for a refused private call, which stream it named.
func coverNote(private bool, inputs map[string]any) string {
	if !private {
		return ""
	}
	resource, _ := inputs["resource"].(string)
	return fmt.Sprintf(" on stream %q", resource)
}

// widens says how a delegation widens the link before it, or "": a term's
// packages the run's packages do not cover, or a verb the connector offers
// no capability of (read: one of effect none or read; write: one of effect
// write or process).
func widens(ctx context.Context, caps Capabilities, a *authority.Authority, d authority.Delegation) string {
	offered := map[string]bool{}
	if info, _ := caps.Info(ctx, d.Connector); info != nil {
		for _, c := range info.Capabilities {
			switch c.Effect {
			case sdk.EffectNone, sdk.EffectRead:
				offered[authority.VerbRead] = true
			case sdk.EffectWrite, sdk.EffectProcess:
				offered[authority.VerbWrite] = true
			}
		}
	}
	for i, t := range d.Terms {
		if !a.Packages.Narrows(t.Packages) {
			return fmt.Sprintf("terms[%d].packages %v asks for packages the run's packages %v do not cover", i, t.Packages.Patterns, a.Packages.Patterns)
		}
		for _, v := range t.Verbs {
			if !offered[v] {
				return fmt.Sprintf("terms[%d] grants %s, and connector %s offers no operation that %ss", i, v, d.Connector, v)
			}
		}
	}
	return ""
}

// PrivateChange is what a call on a private connector would change, from
// its inputs: a read, or an append to a said: stream (the person's exact
// words, no change to the workspace or at a provider), changes nothing;
// any other append, an observed: stream's included, is a store write that
// is not the package's own. ok is false for any other step.
func PrivateChange(def *sdk.Definition, step *pkg.Step, inputs map[string]any) (authority.Change, bool) {
	if def == nil || !def.HasRole(sdk.RolePrivateData) || step.Kind != pkg.KindOperation || step.Operation == nil {
		return authority.Change{}, false
	}
	if def.Effect == sdk.EffectNone || def.Effect == sdk.EffectRead {
		return authority.Change{Kind: authority.ChangeNone}, true
	}
	if resource, _ := inputs["resource"].(string); strings.HasPrefix(resource, sdk.PrivateSaid) {
		if _, _, ok := privateStream(resource); ok {
			return authority.Change{Kind: authority.ChangeNone}, true
		}
	}
	return authority.Change{Kind: authority.ChangeStoreWrite, Operation: step.Operation.Ref, OwnApproval: step.Operation.Approval != nil}, true
}
