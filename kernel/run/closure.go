package run

import (
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/skillctx"
	"github.com/runxhq/runx/sdk/errcode"
)

// Codes of a run's bindings.

// closureOf is the closure digest a run of p is bound to: the runx release,
// p's package digest, the added connectors p calls, and every package p can
// run as a child at any depth (skill steps, the skills a turn's or a
// script's calls list, and a turn's context skills), each by the ref that names it, its package digest
// and its own closure in turn. Whatever runs under the run is bound by it,
// so a child edited while its parent waits is drift the resume refuses.
func (e *engine) closureOf(p *pkg.Package) string {
	d, _ := e.bindClosure(p)
	return d
}

// bindClosure is closureOf, with the package digest of each package of the
// closure by directory.
func (e *engine) bindClosure(p *pkg.Package) (string, map[string]string) {
	added := connector.Added(p, e.addedConnectors())
	expanded := map[string]string{p.Dir: p.Digest}
	children := (&closureWalk{e: e, expanded: expanded}).children(p, 0)
	if len(added) == 0 && len(children) == 0 {
		return ClosureDigest(e.RunxVersion, p.Digest), expanded
	}
	doc := map[string]any{"runx_version": e.RunxVersion, "package_digest": p.Digest}
	if len(added) > 0 {
		doc["added_connectors"] = added
	}
	if len(children) > 0 {
		doc["packages"] = children
	}
	return mustDigest(doc), expanded
}

// closureWalk is one walk of a closure: the packages it has expanded, by
// directory, with their package digests.
type closureWalk struct {
	e        *engine
	expanded map[string]string
}

// children lists the packages p names, in declared order, each once. A
// package already listed elsewhere in the closure is listed again by its
// digest only, so a diamond or a cycle is bounded.
func (w *closureWalk) children(p *pkg.Package, depth int) []any {
	e, expanded := w.e, w.expanded
	if e.Resolver == nil || depth > TreeMaxDepth {
		return nil
	}
	var out []any
	for _, ref := range skillctx.ChildRefs(p) {
		cp, _, err := e.Resolver.Resolve(p.Dir, ref)
		if err != nil {
			// Preparation refuses a run that reaches it; a ref that resolves
			// later is other code, so the digest says which it was.
			out = append(out, map[string]any{"ref": ref, "unresolved": contract.CodeOf(err)})
			continue
		}
		node := map[string]any{"ref": ref, "package_digest": cp.Digest}
		if _, seen := expanded[cp.Dir]; !seen {
			expanded[cp.Dir] = cp.Digest
			if added := connector.Added(cp, e.addedConnectors()); len(added) > 0 {
				node["added_connectors"] = added
			}
			if grand := w.children(cp, depth+1); len(grand) > 0 {
				node["packages"] = grand
			}
		}
		out = append(out, node)
	}
	return out
}

// boundClosure holds a drive to the closure its run was bound to: the first
// child started takes the closure again, and each child started after is
// held to the package digest it had then. So a child edited while the run
// runs, not only while it waits, is refused rather than run.
type boundClosure struct {
	pkg  *pkg.Package
	want string // the run record's closure digest

	once     sync.Once
	err      error
	packages map[string]string // by directory
}

func newBoundClosure(p *pkg.Package, want string) *boundClosure {
	return &boundClosure{pkg: p, want: want}
}

// check refuses child package cp unless it is the package the run's
// closure bound.
func (b *boundClosure) check(e *engine, cp *pkg.Package) error {
	if b == nil || b.want == "" {
		return nil
	}
	b.once.Do(func() {
		var got string
		got, b.packages = e.bindClosure(b.pkg)
		if got != b.want {
			b.err = contract.Errorf(errcode.RunClosureDrift, "a package run %s's closure binds changed while it ran (closure %s, now %s); no child was started: start a new run", b.pkg.Name, b.want, got)
		}
	})
	if b.err != nil {
		return b.err
	}
	if want, ok := b.packages[cp.Dir]; !ok || want != cp.Digest {
		return contract.Errorf(errcode.RunClosureDrift, "child package %s changed while the run ran (bound %s, now %s); it was not started: start a new run", cp.Name, want, cp.Digest)
	}
	return nil
}
