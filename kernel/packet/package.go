package packet

import (
	"fmt"
	"sort"
	"sync"

	"github.com/runxhq/runx/kernel/pkg"
)

// base is the kernel's registry, shared by every run of this process; a
// plugin's packets join it as its description is read (RegisterPlugin).
var base = sync.OnceValue(NewRegistry)

// Base is the process's registry: the kernel's packets and those the
// plugins described.
func Base() *Registry { return base() }

// byPackage keeps each package's view by its digest: its schemas compile
// once for all its runs.
var byPackage sync.Map

// ForPackage is the registry a run of p sees: the kernel's and the
// plugins' packets, and the packet schemas p declares (schemas/<id>.json).
func ForPackage(p *pkg.Package) (*Registry, error) {
	if len(p.Schemas) == 0 {
		return base(), nil
	}
	if v, ok := byPackage.Load(p.Digest); ok && p.Digest != "" {
		return v.(*Registry), nil
	}
	ids := make([]string, 0, len(p.Schemas))
	for id := range p.Schemas {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	declared := make([]*Schema, 0, len(ids))
	for _, id := range ids {
		s, err := NewSchema(id, p.Schemas[id], FromPackage, p.Name)
		if err != nil {
			return nil, err
		}
		declared = append(declared, s)
	}
	r, err := base().With(declared...)
	if err != nil {
		return nil, err
	}
	if p.Digest != "" {
		byPackage.Store(p.Digest, r)
	}
	return r, nil
}

// Named is every packet p names, each with where it is named: its
// methods' inputs typed with a packet, and its methods', steps' and own
// connectors' operations' outputs.
func Named(p *pkg.Package) map[string]string {
	out := map[string]string{}
	add := func(outputs map[string]*pkg.OutputSpec, what string) {
		for name, o := range outputs {
			if o.Packet != "" {
				if _, seen := out[o.Packet]; !seen {
					out[o.Packet] = fmt.Sprintf("%s output %s", what, name)
				}
			}
		}
	}
	for _, m := range p.Methods {
		add(m.Outputs, "method "+m.Name)
		for _, in := range m.Inputs {
			if _, seen := out[in.Type]; ValidID(in.Type) && !seen {
				out[in.Type] = "method " + m.Name + " input " + in.Name
			}
		}
		for _, s := range m.Steps {
			add(s.Outputs, "step "+s.ID)
		}
	}
	for name, c := range p.Connectors {
		for _, op := range c.Operations {
			add(op.Outputs, "connector "+name+" operation "+op.Name)
		}
	}
	return out
}

// Prepare requires every packet p names to be registered for its runs,
// before any step runs: one neither runx nor p declares is looked up with
// describe (FromPlugins), which registers a plugin's in Base;
// packet_unknown names the first none describes.
func Prepare(p *pkg.Package, describe func(id string) (*Schema, error)) error {
	named := Named(p)
	if len(named) == 0 {
		return nil
	}
	r, err := ForPackage(p)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(named))
	for id := range named {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, ok := r.Lookup(id); ok || describe == nil {
			continue
		}
		s, err := describe(id)
		if err != nil {
			return err
		}
		if s != nil {
			if err := base().Register(s); err != nil {
				return err
			}
		}
	}
	for _, id := range ids {
		if _, err := r.Require(id, named[id]); err != nil {
			return err
		}
	}
	return nil
}
