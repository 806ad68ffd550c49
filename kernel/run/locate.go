package run

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/runxhq/runx/sdk/errcode"
)

// A Locator finds what a command line names as a kernel would, from its
// resolved options alone. It opens no project state, so a command that
// fails here (an unknown or refused package, a method that is not there)
// leaves no .runx behind: commands load through it before they open a
// kernel.
type Locator struct {
	Options  Options
	resolver *skillResolver
}

// LoadOptions is how the kernel loads packages (loadopts.go).
func (l *Locator) LoadOptions() pkg.LoadOptions {
	return loadOptions(l.Options.RunxVersion, l.Options.HomeDir)
}

// Package loads the package a reference names and selects the method it or
// the command line names, refusing the two naming different methods.
func (l *Locator) Package(ref, method string) (*pkg.Package, *pkg.Method, error) {
	path, named := pkg.SplitRef(ref)
	if method != "" {
		if named != "" && named != method {
			return nil, nil, contract.Errorf(errcode.MethodConflict, "the reference names method %q and the command names %q", named, method)
		}
		named = method
	}
	p, err := l.load(path)
	if err != nil {
		return nil, nil, err
	}
	m, err := p.SelectMethod(named)
	if err != nil {
		return p, nil, err
	}
	return p, m, nil
}

// PackageDir finds the package directory a command line names: runx/<name>
// is always the core skill, never a workspace copy; a path (relative to the
// invocation directory) when one is there; else a bare name in the
// workspace's skills/ or a core skill, as a skill step's ref resolves.
func (l *Locator) PackageDir(ref string) string {
	if strings.HasPrefix(ref, "runx/") {
		if dir, err := l.resolver.core(strings.TrimPrefix(ref, "runx/")); err == nil {
			return dir
		}
	}
	path := ref
	if !filepath.IsAbs(path) {
		path = filepath.Join(l.Options.Cwd, path)
	}
	// An explicit path is taken as written without a stat (Load refuses
	// one that is missing); only a bare name is looked for first.
	if strings.HasPrefix(ref, ".") || filepath.IsAbs(ref) {
		return path
	}
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if dir, err := l.resolver.locate(l.Options.Workspace, ref); err == nil {
		return dir
	}
	return path
}

// load loads the package a command line's path names: a registry ref
// from the workspace's own copy or the project's added skills (verified,
// as every bind of one is), anything else where PackageDir finds it.
func (l *Locator) load(path string) (*pkg.Package, error) {
	if ref, ok, err := installed.ParseRegistryRef(path); ok && !l.isPath(path) {
		if err != nil {
			return nil, err
		}
		dir, _, err := l.resolver.Locate(ref)
		if err != nil {
			return nil, err
		}
		return l.resolver.load(dir)
	}
	return l.resolver.load(l.PackageDir(path))
}

// isPath reports whether a command line's ref is a directory relative to
// the invocation directory, which is that package and never a registry
// lookup.
func (l *Locator) isPath(ref string) bool {
	if strings.HasPrefix(ref, "registry:") {
		return false
	}
	fi, err := os.Stat(filepath.Join(l.Options.Cwd, ref))
	return err == nil && fi.IsDir()
}

// locator is this kernel's Locator, sharing its resolver.
func (k *Kernel) locator() *Locator {
	return &Locator{Options: k.Options, resolver: k.engine.Resolver}
}

// locate is PackageDir with this kernel's resolver.
func (k *Kernel) locate(ref string) string { return k.locator().PackageDir(ref) }

// LoadSkill loads the package a reference names and selects its method, as
// `runx skill` does, for a front that lists methods before it runs them
// (runx mcp). An empty method selects the default.
func (k *Kernel) LoadSkill(ref string) (*pkg.Package, *pkg.Method, error) {
	path, method := pkg.SplitRef(ref)
	p, err := k.locator().load(path)
	if err != nil {
		return nil, nil, err
	}
	m, err := p.SelectMethod(method)
	if err != nil {
		return p, nil, err
	}
	return p, m, nil
}
