package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Codes of the run-level authority checks kernel/authority does not own.

// PackageRef names a package as the authority's packages field does: a
// core skill this runx carries is runx/<name> (a bundled package under
// homeDir, publisher runx); any other package the project holds is
// project:<name>.
func PackageRef(homeDir string, p *pkg.Package) string {
	if p.Registry != nil {
		// A verified registry package is its publisher's, whatever
		// directory holds it.
		return p.Registry.Publisher + "/" + p.Registry.Name
	}
	bundled := filepath.Join(homeDir, "bundled") + string(filepath.Separator)
	if homeDir != "" && strings.HasPrefix(p.Dir+string(filepath.Separator), bundled) {
		return "runx/" + p.Name
	}
	return "project:" + p.Name
}

// AdmitAuthority refuses, before a run starts, what of its authority this
// runx cannot enforce as stated: a delegation for a connector no installed
// plugin is (describe answers what one is), or a term's bounds where the
// connector's description declares none to check them against: only a
// connector whose capabilities hold the private data role has bounds, its
// streams (privateBounds). Enforce or refuse: a bound parsed and ignored
// would let a person believe it holds.
func AdmitAuthority(ctx context.Context, a *authority.Authority, describe func(ctx context.Context, name string) (*sdk.Info, error)) error {
	if a == nil {
		return nil
	}
	for i, d := range a.Delegations {
		info, err := describe(ctx, d.Connector)
		if err != nil {
			return contract.Errorf(errcode.AuthorityUnsupported, "authority delegations[%d].connector: no installed plugin is connector %q, so its delegation could never be checked; remove it", i, d.Connector)
		}
		if reason := widensVerbs(info, d); reason != "" {
			return contract.Errorf(errcode.DelegationWidens, "authority delegations[%d]: %s, so the term widens what the connector can grant; remove the verb", i, reason)
		}
		for j, t := range d.Terms {
			if len(t.Bounds) == 0 {
				continue
			}
			if !privateConnector(info) {
				return contract.Errorf(errcode.AuthorityUnsupported, "authority delegations[%d].terms[%d].bounds: connector %s declares no bounds, so these could not be enforced; remove them", i, j, d.Connector)
			}
			if _, err := privateBounds(t.Bounds); err != nil {
				return contract.Errorf(errcode.AuthorityUnsupported, "authority delegations[%d].terms[%d].bounds: %v", i, j, err)
			}
		}
	}
	return nil
}

// CallAuthority decides an operation call against the recorded authority's
// packages (chain: the packages from the root's down to the calling run's)
// and delegations before anything is sent, inputs being the call's. It
// returns a refusal, or nil and the execution term to record on the
// call's receipt.
func CallAuthority(ctx context.Context, caps Capabilities, recorded []byte, chain []string, step *pkg.Step, inputs map[string]any) (*contract.ErrorBody, map[string]any) {
	if step.Kind != pkg.KindOperation || step.Operation == nil {
		return nil, nil
	}
	a, err := Recorded(recorded)
	if err != nil {
		return contract.BodyOf(err), nil
	}
	def := caps.Operation(ctx, step)
	private := def != nil && def.HasRole(sdk.RolePrivateData)
	if a == nil {
		a = &authority.Authority{}
		if !private {
			return nil, nil
		}
	}
	term := map[string]any{}
	if a.Packages.Stated {
		term["chain"] = chain
		if err := a.Packages.CheckChain(chain); err != nil {
			body := contract.BodyOf(err)
			body.Message = "step " + step.ID + " calls " + step.Operation.Ref + ": " + body.Message + "; nothing was sent"
			return body, term
		}
	}
	verb := authority.VerbRead
	if def == nil || def.Effect == sdk.EffectWrite || def.Effect == sdk.EffectProcess {
		verb = authority.VerbWrite
	}
	i := slices.IndexFunc(a.Delegations, func(d authority.Delegation) bool { return d.Connector == step.Operation.Connector })
	if i < 0 {
		if private {
			return &contract.ErrorBody{Code: errcode.DelegationTermRequired, Message: fmt.Sprintf(
				"step %s calls %s, and every call on connector %s needs a term of the run's authority, which delegates it none; give one with --run-authority '{\"delegations\":[{\"connector\":%q,\"terms\":[{\"verbs\":[%q]}]}]}', or save it with runx authority save <name> <file> and name it with --authority <name>; nothing was sent",
				step.ID, step.Operation.Ref, step.Operation.Connector, step.Operation.Connector, verb)}, term
		}
		return nil, term
	}
	d := a.Delegations[i]
	if reason := widensPackages(a, d); reason != "" {
		return &contract.ErrorBody{Code: errcode.DelegationWidens, Message: fmt.Sprintf(
			"step %s calls %s, and the run's delegation for %s widens what it was given: %s; every call on %s is refused; nothing was sent", step.ID, step.Operation.Ref, d.Connector, reason, d.Connector)}, term
	}
	for i, t := range d.Terms {
		if t.Covers(verb, chain) && (!private || streamCovered(t.Bounds, inputs)) {
			del := map[string]any{"connector": d.Connector, "term": i, "verb": verb}
			if d.PrincipalRef != "" {
				del["principal_ref"], del["mandate_ref"] = d.PrincipalRef, d.MandateRef
			}
			term["delegation"] = del
			return nil, term
		}
	}
	return &contract.ErrorBody{Code: errcode.DelegationNotCovered, Message: fmt.Sprintf(
		"step %s calls %s, a %s, and no term of the run's delegation for %s grants it%s; nothing was sent", step.ID, step.Operation.Ref, verb, d.Connector, coverNote(private, inputs))}, term
}

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

// widensPackages says how a delegation's terms widen the run's packages,
// the link before them, or "": a term's packages the run's do not cover.
func widensPackages(a *authority.Authority, d authority.Delegation) string {
	for i, t := range d.Terms {
		if !a.Packages.Narrows(t.Packages) {
			return fmt.Sprintf("terms[%d].packages %v asks for packages the run's packages %v do not cover", i, t.Packages.Patterns, a.Packages.Patterns)
		}
	}
	return ""
}

// widensVerbs says how a delegation's terms widen the connector's own
// capability, the first link, or "": a verb the connector offers no
// operation of (read: one of effect none or read; write: one of effect
// write or process). The connector's description says so before the run
// starts, so admission refuses it.
func widensVerbs(info *sdk.Info, d authority.Delegation) string {
	offered := map[string]bool{}
	for _, c := range info.Capabilities {
		switch c.Effect {
		case sdk.EffectNone, sdk.EffectRead:
			offered[authority.VerbRead] = true
		case sdk.EffectWrite, sdk.EffectProcess:
			offered[authority.VerbWrite] = true
		}
	}
	for i, t := range d.Terms {
		for _, v := range t.Verbs {
			if !offered[v] {
				return fmt.Sprintf("terms[%d] grants %s, and connector %s offers no operation that %ss", i, v, d.Connector, v)
			}
		}
	}
	return ""
}
