package gate

import (
	"context"
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
	if reason := widens(ctx, caps, a, d); reason != "" {
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
