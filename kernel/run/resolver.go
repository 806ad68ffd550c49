package run

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/runxhq/runx/sdk/errcode"
)

// skillResolver finds the package a skill step names: a path relative to the
// package (./child), a bare name (the workspace's skills/<name>/, then a core
// skill), or runx/<name> (a core skill, never shadowed by a workspace copy).
// A registry ref it reads from the project's added skills (Skills).
type skillResolver struct {
	installed.Skills
	// Core holds the core skills this release carries, one directory each.
	Core fs.FS
}

// newResolver reads the workspace's skills from workspace and the rest
// from the options' project, home and core skills.
func newResolver(workspace string, o Options) *skillResolver {
	return &skillResolver{Core: o.CoreSkills, Skills: installed.Skills{Workspace: workspace, ProjectDir: o.ProjectDir,
		HomeDir: o.HomeDir, RunxVersion: o.RunxVersion, Options: loadOptions(o.RunxVersion, o.HomeDir)}}
}

// Resolve loads the package a ref names, relative to the package at fromDir,
// and returns it with the method the ref names (or "").
func (r *skillResolver) Resolve(fromDir, ref string) (*pkg.Package, string, error) {
	path, method := pkg.SplitRef(ref)
	dir, err := r.locate(fromDir, path)
	if err != nil {
		return nil, "", err
	}
	p, err := r.load(dir)
	if err != nil {
		return nil, "", err
	}
	return p, method, nil
}

func (r *skillResolver) locate(fromDir, path string) (string, error) {
	if ref, ok, err := installed.ParseRegistryRef(path); err != nil {
		return "", err
	} else if ok {
		dir, _, err := r.Locate(ref)
		return dir, err
	}
	switch {
	case strings.HasPrefix(path, "./"), strings.HasPrefix(path, "../"):
		return filepath.Join(fromDir, filepath.FromSlash(path)), nil
	case filepath.IsAbs(path):
		return path, nil
	case strings.HasPrefix(path, "runx/"):
		return r.core(strings.TrimPrefix(path, "runx/"))
	}
	local := filepath.Join(r.Workspace, "skills", filepath.FromSlash(path))
	if _, err := os.Stat(filepath.Join(local, "SKILL.md")); err == nil {
		return local, nil
	}
	if dir, err := r.core(path); err == nil {
		return dir, nil
	}
	return "", contract.Errorf(errcode.SkillNotFound, "no skill %q: looked in %s and the core skills this runx carries", path, local)
}

// core materialises a core skill into the runx home (installed.Core).
func (r *skillResolver) core(name string) (string, error) {
	return installed.Core(r.Core, r.HomeDir, r.RunxVersion, name)
}
