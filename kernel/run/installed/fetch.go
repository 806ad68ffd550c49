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
