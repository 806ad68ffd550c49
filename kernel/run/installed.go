package run

import (
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
)

// load loads the package at dir. A package of the project's added skills
// is bound only once its signature.json verifies against its exact bytes
// under a key trusted for its publisher, at every load (installed.Skills'
// Load): an edited or unsigned copy is refused with a typed error and
// nothing of it runs.
func (r *skillResolver) load(dir string) (*pkg.Package, error) {
	load := func() (*pkg.Package, error) { return pkg.Load(dir, loadOptions(r.RunxVersion, r.HomeDir)) }
	if r.Holds(dir) {
		load = func() (*pkg.Package, error) { return r.Load(dir) }
	}
	p, err := load()
	if err != nil {
		return nil, err
	}
	if err := connector.CheckPins(p); err != nil {
		return nil, err
	}
	return p, nil
}

// loadPackage loads the package a run recorded at dir as a bind does,
// verifying it again when the project's added skills hold it.
func (e *engine) loadPackage(dir string) (*pkg.Package, error) {
	if e.Resolver == nil {
		return pkg.Load(dir, loadOptions(e.RunxVersion, e.HomeDir))
	}
	return e.Resolver.load(dir)
}
