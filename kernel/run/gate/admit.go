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
// plugin is (installed answers whether one is), or a term's bounds, which
// no capability definition declares (the plugin protocol has no bounds to
// check them against). Enforce or refuse: a bound parsed and ignored would
// let a person believe it holds.
func AdmitAuthority(ctx context.Context, a *authority.Authority, installed func(ctx context.Context, name string) error) error {
	if a == nil {
		return nil
	}
	for i, d := range a.Delegations {
		if err := installed(ctx, d.Connector); err != nil {
			return contract.Errorf(errcode.AuthorityUnsupported, "authority delegations[%d].connector: no installed plugin is connector %q, so its delegation could never be checked; remove it", i, d.Connector)
		}
		for j, t := range d.Terms {
			if len(t.Bounds) > 0 {
				return contract.Errorf(errcode.AuthorityUnsupported, "authority delegations[%d].terms[%d].bounds: connector %s declares no bounds, so these could not be enforced; remove them", i, j, d.Connector)
			}
		}
	}
	return nil
}

// CallAuthority decides an operation call against the recorded authority's
// packages (chain: the packages from the root's down to the calling run's)
// and delegations before anything is sent. It returns a refusal, or nil
// and the execution term to record on the call's receipt.
func CallAuthority(ctx context.Context, caps Capabilities, recorded []byte, chain []string, step *pkg.Step) (*contract.ErrorBody, map[string]any) {
	if step.Kind != pkg.KindOperation || step.Operation == nil {
		return nil, nil
	}
	a, err := Recorded(recorded)
	if err != nil {
		return contract.BodyOf(err), nil
	}
	if a == nil {
		return nil, nil
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
	for _, d := range a.Delegations {
		if d.Connector != step.Operation.Connector {
			continue
		}
		verb := authority.VerbRead
		if def := caps.Operation(ctx, step); def == nil || def.Effect == sdk.EffectWrite || def.Effect == sdk.EffectProcess {
			verb = authority.VerbWrite
		}
		for i, t := range d.Terms {
			if slices.Contains(t.Verbs, verb) {
				del := map[string]any{"connector": d.Connector, "term": i, "verb": verb}
				if d.PrincipalRef != "" {
					del["principal_ref"], del["mandate_ref"] = d.PrincipalRef, d.MandateRef
				}
				term["delegation"] = del
				return nil, term
			}
		}
		return &contract.ErrorBody{Code: errcode.DelegationNotCovered, Message: fmt.Sprintf(
			"step %s calls %s, a %s, and no term of the run's delegation for %s grants %s; nothing was sent", step.ID, step.Operation.Ref, verb, d.Connector, verb)}, term
	}
	return nil, term
}
