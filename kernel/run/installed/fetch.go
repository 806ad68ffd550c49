package installed

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
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

// Ensure fetches ref with f unless the workspace's own copy or an
// installed, readable version answers it. f is nil when no registry is
// configured.
func (s Skills) Ensure(ctx context.Context, f RegistryFetcher, ref RegistryRef, digest string) ([]Unread, error) {
	if _, ok := s.OwnCopy(ref); ok {
		return nil, nil
	}
	if ref.Version != "" {
		if _, err := os.Stat(s.Dir(ref)); err == nil {
			return nil, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	} else if _, unread, err := s.Locate(ref); err == nil {
		return unread, nil
	}
	if f == nil {
		return nil, contract.Errorf(errcode.RegistryUnavailable, "registry skill %s is not installed in this project and no registry is configured: pass --registry <url>, set RUNX_REGISTRY_URL, or install it with runx registry install", ref)
	}
	got, err := f.FetchSkill(ctx, s.ProjectDir, s.HomeDir, ref, digest)
	if err != nil {
		return nil, err
	}
	return got.NewestUnread, nil
}

// Closure is what a fetch needs of the engine to walk a package's
// closure: the skill refs a package's methods name, the package a ref
// resolves to from a package's directory, and how deep a tree may nest.
type Closure struct {
	Refs     func(*pkg.Package) []string
	Resolve  func(fromDir, ref string) (*pkg.Package, string, error)
	MaxDepth int
}

// FetchClosure fetches with f what p's skill refs name and walks each
// package they resolve to, each once, no deeper than c.MaxDepth: the
// registry skill steps and calls of every package in p's closure, at any
// depth.
func (s Skills) FetchClosure(ctx context.Context, f RegistryFetcher, c Closure, p *pkg.Package) error {
	w := &fetchWalk{s: s, f: f, c: c, ctx: ctx, seen: map[string]bool{}}
	return w.children(p, 0)
}

// fetchWalk is one fetch's walk of a closure.
type fetchWalk struct {
	s    Skills
	f    RegistryFetcher
	c    Closure
	ctx  context.Context
	seen map[string]bool // package directories walked
}

// children fetches what p's skill refs name and walks each package they
// resolve to, each once, no deeper than a tree may nest.
func (w *fetchWalk) children(p *pkg.Package, depth int) error {
	if w.seen[p.Dir] || depth > w.c.MaxDepth {
		return nil
	}
	w.seen[p.Dir] = true
	for _, ref := range w.c.Refs(p) {
		path, _ := pkg.SplitRef(ref)
		if rr, ok, err := ParseRegistryRef(path); ok {
			if err != nil {
				return err
			}
			if _, err := w.s.Ensure(w.ctx, w.f, rr, ""); err != nil {
				return err
			}
		}
		cp, _, err := w.c.Resolve(p.Dir, ref)
		if err != nil {
			// A child that does not resolve for another reason is
			// refused by preparation, with the step that names it.
			if contract.CodeOf(err) == errcode.SkillNotFound || contract.CodeOf(err) == errcode.PackageNotFound {
				continue
			}
			return err
		}
		if err := w.children(cp, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// CheckDigest holds a registry package to the content digest a host
// stated (--digest). Your own copy at skills/<publisher>/<name>/ answers
// the ref whatever the registry holds, so it is not held to it.
func CheckDigest(p *pkg.Package, digest string) error {
	if digest == "" || p.Registry == nil || p.Registry.ContentDigest == digest {
		return nil
	}
	return contract.Errorf(errcode.BindingPackageMismatch, "--digest %s is not the content digest of installed %s (%s)", digest, p.Registry.Ref(), p.Registry.ContentDigest)
}

// DescribeRun names on a run's envelope the registry package it bound
// and the newer versions passed over for it.
func DescribeRun(env *contract.SkillRun, p *pkg.Package, unread []Unread) *contract.SkillRun {
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

// ReceiptPackage is what a run's receipt names of the registry package
// it bound, nil for any other package.
func ReceiptPackage(p *pkg.Package) *receipt.RegistryPackage {
	if p == nil || p.Registry == nil {
		return nil
	}
	id := p.Registry
	return &receipt.RegistryPackage{ContentDigest: id.ContentDigest, Name: id.Name, Publisher: id.Publisher,
		Registry: id.Registry, TrustTier: id.TrustTier, Version: id.Version}
}
