package run

import (
	"github.com/runxhq/runx/kernel/pkg"
)

// LoadSkill loads the package a reference names and selects its method, as
// `runx skill` does, for a front that lists methods before it runs them
// (runx mcp). An empty method selects the default.
func (k *Kernel) LoadSkill(ref string) (*pkg.Package, *pkg.Method, error) {
	path, method := pkg.SplitRef(ref)
	p, err := pkg.Load(k.locate(path), k.LoadOptions())
	if err != nil {
		return nil, nil, err
	}
	m, err := p.SelectMethod(method)
	if err != nil {
		return p, nil, err
	}
	return p, m, nil
}
