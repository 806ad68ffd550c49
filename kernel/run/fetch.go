package run

import (
	"context"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/runxhq/runx/kernel/run/skillctx"
	"github.com/runxhq/runx/sdk/errcode"
)

// prefetch adds to the project every registry skill the run of ref can
// reach that it does not hold: ref itself, then the registry skill steps
// and calls of every package in its closure, at any depth. It runs before
// the run starts; what it cannot fetch refuses the run with nothing run.
// It returns what the fetch of ref itself passed over (newest_unread).
func (k *Kernel) prefetch(ctx context.Context, ref, digest string) ([]installed.Unread, error) {
	loc := k.locator()
	path, _ := pkg.SplitRef(ref)
	var unread []installed.Unread
	if r, ok, err := installed.ParseRegistryRef(path); ok && !loc.isPath(path) {
		if err != nil {
			return nil, err
		}
		if unread, err = k.engine.Resolver.Ensure(ctx, k.Options.Registry, r, digest); err != nil {
			return nil, err
		}
	}
	p, err := loc.load(path)
	if err != nil {
		// The run's own load reports it, as it would without a fetch.
		return unread, nil
	}
	r := k.engine.Resolver
	c := installed.Closure{Refs: skillctx.ChildRefs, Resolve: r.Resolve, MaxDepth: TreeMaxDepth}
	return unread, r.FetchClosure(ctx, k.Options.Registry, c, p)
}

// Fetches reports whether a command line's ref names a registry skill
// the project does not hold yet, which a run fetches before it starts: a
// command then leaves its package's checks to the kernel.
func (l *Locator) Fetches(ref string) bool {
	path, _ := pkg.SplitRef(ref)
	r, ok, err := installed.ParseRegistryRef(path)
	if !ok || err != nil || l.isPath(path) {
		return false
	}
	_, _, err = l.resolver.Locate(r)
	return contract.CodeOf(err) == errcode.RegistrySkillNotInstalled
}
