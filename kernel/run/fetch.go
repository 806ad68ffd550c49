package run

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// A RegistryFetcher adds registry skills to the project's added skills
// before a run starts. cmd/runx gives the kernel one over the registry
// client (Options.Registry); kernel/run never reaches a registry itself,
// and nothing fetches while a run runs: a run reads only installed copies,
// each verified at every bind.
type RegistryFetcher interface {
	// FetchSkill installs ref into <projectDir>/added-skills (at its
	// version, or the newest this runx reads when it names none),
	// verified under the trust store of the runx home homeDir, and
	// returns the version it installed, with any newer one it passed
	// over. digest, when not empty, is the content digest the package
	// must have.
	FetchSkill(ctx context.Context, projectDir, homeDir string, ref RegistryRef, digest string) (FetchedSkill, error)
}

// FetchedSkill is what a fetch installed.
type FetchedSkill struct {
	Version      string   `json:"version"`
	NewestUnread []Unread `json:"newest_unread,omitempty"`
}

// prefetch adds to the project every registry skill the run of ref can
// reach that it does not hold: ref itself, then the registry skill steps
// and calls of every package in its closure, at any depth. It runs before
// the run starts; what it cannot fetch refuses the run with nothing run.
// It returns what the fetch of ref itself passed over (newest_unread).
func (k *Kernel) prefetch(ctx context.Context, ref, digest string) ([]Unread, error) {
	loc := k.locator()
	path, _ := pkg.SplitRef(ref)
	f := &fetchWalk{k: k, ctx: ctx, seen: map[string]bool{}}
	var unread []Unread
	if r, ok, err := ParseRegistryRef(path); ok && !loc.isPath(path) {
		if err != nil {
			return nil, err
		}
		if unread, err = f.ensure(r, digest); err != nil {
			return nil, err
		}
	}
	p, err := loc.load(path)
	if err != nil {
		// The run's own load reports it, as it would without a fetch.
		return unread, nil
	}
	return unread, f.children(p, 0)
}

// fetchWalk is one prefetch's walk of a closure.
type fetchWalk struct {
	k    *Kernel
	ctx  context.Context
	seen map[string]bool // package directories walked
}

// children fetches what p's skill refs name and walks each package they
// resolve to, each once, no deeper than a tree may nest.
func (f *fetchWalk) children(p *pkg.Package, depth int) error {
	if f.seen[p.Dir] || depth > TreeMaxDepth {
		return nil
	}
	f.seen[p.Dir] = true
	r := f.k.engine.Resolver
	for _, ref := range childRefs(p) {
		path, _ := pkg.SplitRef(ref)
		if rr, ok, err := ParseRegistryRef(path); ok {
			if err != nil {
				return err
			}
			if _, err := f.ensure(rr, ""); err != nil {
				return err
			}
		}
		cp, _, err := r.Resolve(p.Dir, ref)
		if err != nil {
			// A child that does not resolve for another reason is
			// refused by preparation, with the step that names it.
			if contract.CodeOf(err) == errcode.SkillNotFound || contract.CodeOf(err) == errcode.PackageNotFound {
				continue
			}
			return err
		}
		if err := f.children(cp, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// ensure fetches ref unless the workspace's own copy or an installed,
// readable version answers it.
func (f *fetchWalk) ensure(ref RegistryRef, digest string) ([]Unread, error) {
	r := f.k.engine.Resolver
	if _, ok := r.ownCopy(ref); ok {
		return nil, nil
	}
	if ref.Version != "" {
		if _, err := os.Stat(r.installedDir(ref)); err == nil {
			return nil, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	} else if _, unread, err := r.locateRegistry(ref); err == nil {
		return unread, nil
	}
	if f.k.Options.Registry == nil {
		return nil, contract.Errorf(errcode.RegistryUnavailable, "registry skill %s is not installed in this project and no registry is configured: pass --registry <url>, set RUNX_REGISTRY_URL, or install it with runx registry install", ref)
	}
	got, err := f.k.Options.Registry.FetchSkill(f.ctx, f.k.Options.ProjectDir, f.k.Options.HomeDir, ref, digest)
	if err != nil {
		return nil, err
	}
	return got.NewestUnread, nil
}

// checkRegistryDigest holds a registry package to the content digest a
// host stated (--digest). Your own copy at skills/<publisher>/<name>/
// answers the ref whatever the registry holds, so it is not held to it.
func checkRegistryDigest(p *pkg.Package, digest string) error {
	if digest == "" || p.Registry == nil || p.Registry.ContentDigest == digest {
		return nil
	}
	return contract.Errorf(errcode.BindingPackageMismatch, "--digest %s is not the content digest of installed %s (%s)", digest, p.Registry.Ref(), p.Registry.ContentDigest)
}

// describeRegistry names on a run's envelope the registry package it
// bound and the newer versions passed over for it.
func describeRegistry(env *contract.SkillRun, p *pkg.Package, unread []Unread) *contract.SkillRun {
	if env == nil || p.Registry == nil {
		return env
	}
	id := p.Registry
	env.Registry = &contract.RegistryPackage{Ref: id.Ref(), Registry: id.Registry, Publisher: id.Publisher, Name: id.Name,
		Version: id.Version, ContentDigest: id.ContentDigest, TrustTier: id.TrustTier}
	for _, u := range unread {
		env.Registry.NewestUnread = append(env.Registry.NewestUnread, contract.UnreadVersion{Version: u.Version, Why: u.Why})
	}
	return env
}

// Fetches reports whether a command line's ref names a registry skill
// the project does not hold yet, which a run fetches before it starts: a
// command then leaves its package's checks to the kernel.
func (l *Locator) Fetches(ref string) bool {
	path, _ := pkg.SplitRef(ref)
	r, ok, err := ParseRegistryRef(path)
	if !ok || err != nil || l.isPath(path) {
		return false
	}
	_, _, err = l.resolver.locateRegistry(r)
	return contract.CodeOf(err) == errcode.RegistrySkillNotInstalled
}
