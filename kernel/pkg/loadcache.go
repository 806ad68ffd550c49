package pkg

import (
	"maps"
	"path/filepath"
	"slices"

	"github.com/runxhq/runx/kernel/pkg/semver"
)

// A server loads its package for every call (runx mcp), and an unchanged
// package loads to the same Package each time: reading SKILL.md and
// run.yaml, decoding every method and step, checking modules exist and
// reading connectors. A load with a plan cache is therefore remembered on
// the package's listing snapshot (treederive.go), so it is served again
// only while no file of the package changed; a refusal is never
// remembered, so a refused package is refused by a full load each time,
// with the same code and position.

// loadKey is what a load depends on besides the package's files: the
// path as the caller wrote it (messages show it), the runx semver.Version, and
// the plan cache (a load with another cache reads its entries, as tests
// of that cache rely on).
type loadKey struct {
	cache *PlanCache
	shown string
	runx  string
}

// loadCached is load, served from memory while the package is unchanged.
func loadCached(shown, dir string, runx semver.Version, opts LoadOptions) (*Package, error) {
	key := loadKey{cache: opts.Cache, shown: shown, runx: opts.RunxVersion}
	snap, err := listTree(dir)
	if err != nil {
		// Whatever a listing refuses, a full load refuses in its own order.
		return load(shown, dir, runx, opts)
	}
	if v, ok := snap.derived.Load(key); ok {
		p := v.(*Package)
		// The key binds the version, so this cannot refuse today; it runs
		// on every load all the same, as an uncached load's check does.
		if !p.Implicit {
			if err := checkMinimumRunx(filepath.Join(shown, ProfileFile), p.Name, p.MinimumRunx, p.minimumRunxPos, runx, opts.RunxVersion); err != nil {
				return nil, err
			}
		}
		return p.callerCopy(snap), nil
	}
	p, err := load(shown, dir, runx, opts)
	if err != nil {
		return nil, err
	}
	// The files were read through shown: remember the load only when shown
	// still leads to dir and everything it read is stamped by the listing.
	if again, err := resolveDir(shown); err == nil && again == dir && readsCovered(p) && snap.keep(dir, key, p) {
		return p.callerCopy(snap), nil
	}
	return p.callerCopy(nil), nil
}

// callerCopy is the Package a caller gets: its own struct, Methods slice
// and maps, so assigning a field or an element never reaches the
// remembered load. What they point at (methods, steps, specs, connectors)
// is shared and read-only after Load, as it already was between the
// goroutines of one run; TestLoadCacheCallersShareNothingTheyChange and
// kernel/run's TestRunLeavesTheLoadedPackageUnchanged hold both to it.
func (p *Package) callerCopy(tree *treeSnapshot) *Package {
	c := *p
	c.tree = tree
	c.Methods = slices.Clone(p.Methods)
	c.Metadata = maps.Clone(p.Metadata)
	c.Connectors = maps.Clone(p.Connectors)
	c.Schemas = maps.Clone(p.Schemas)
	return &c
}

// readsCovered reports whether every file Load read beyond SKILL.md and
// run.yaml (module files it checked, connector manifests) is one the
// listing stamps.
func readsCovered(p *Package) bool {
	for name := range p.Connectors {
		if !coveredRel(ConnectorsDir + "/" + name) {
			return false
		}
	}
	for _, m := range p.Methods {
		for _, st := range m.Steps {
			switch {
			case st.Tool != nil && st.Tool.Module != nil && !coveredRel(st.Tool.Module.Module):
				return false
			case st.Script != nil && !coveredRel(st.Script.Module):
				return false
			}
		}
	}
	return true
}
