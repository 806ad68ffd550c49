package connector

import (
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// CheckPins refuses a pin in p's run.yaml connectors that the package
// cannot mean: one naming a connector it carries itself (its own copy is
// bound by the package digest) or one no step of it calls. A pin parsed
// and never checked would be a promise nothing keeps. Every bind of a
// package calls it; checkPin holds the added connector to a pin at use.
func CheckPins(p *pkg.Package) error {
	if len(p.ConnectorPins) == 0 {
		return nil
	}
	called := map[string]bool{}
	for _, name := range calledConnectors(p) {
		called[name] = true
	}
	file := filepath.Join(p.Dir, pkg.ProfileFile)
	for name := range p.ConnectorPins {
		if _, own := p.Connectors[name]; own {
			return contract.Errorf(errcode.ConnectorPinInvalid, "%s: connectors pins %s, which the package carries at connectors/%s/: its own copy is bound by the package digest; remove the pin", file, name, name)
		}
		if !called[name] {
			return contract.Errorf(errcode.ConnectorPinInvalid, "%s: connectors pins %s, which no step of the package calls; remove the pin", file, name)
		}
	}
	return nil
}

// calledConnectors are the connectors p's steps and call lists name.
func calledConnectors(p *pkg.Package) []string {
	var out []string
	add := func(ref string) {
		if i := strings.LastIndexByte(ref, '/'); i > 0 {
			out = append(out, ref[:i])
		}
	}
	for _, m := range p.Methods {
		for _, s := range m.Steps {
			if s.Operation != nil {
				add(s.Operation.Ref)
			}
			if s.Agent != nil && s.Agent.Calls != nil {
				for _, op := range s.Agent.Calls.Operations {
					add(op)
				}
			}
			if s.Script != nil && s.Script.Calls != nil {
				for _, op := range s.Script.Calls.Operations {
					add(op)
				}
			}
		}
	}
	return out
}
