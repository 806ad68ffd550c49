package run

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// core materialises a core skill into <home>/bundled/<name>/<version>/ on
// first use. A version directory is written once, from the binary's own
// copy, into a staging directory renamed into place.
func (r *skillResolver) core(name string) (string, error) {
	if r.Core == nil || name == "" || strings.ContainsAny(name, `/\.`) {
		return "", contract.Errorf(errcode.SkillNotFound, "no core skill %q", name)
	}
	if _, err := fs.Stat(r.Core, name+"/SKILL.md"); err != nil {
		return "", contract.Errorf(errcode.SkillNotFound, "no core skill %q in this runx %s", name, r.RunxVersion)
	}
	sub, err := fs.Sub(r.Core, name)
	if err != nil {
		return "", err
	}
	fingerprint, err := fsDigest(sub)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(r.HomeDir, "bundled", name, r.RunxVersion)
	marker := filepath.Join(dst, ".runx-bundled")
	if got, err := os.ReadFile(marker); err == nil && string(got) == fingerprint {
		return dst, nil
	}
	stage, err := os.MkdirTemp(filepath.Dir(dst), "."+name+"-")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
			stage, err = os.MkdirTemp(filepath.Dir(dst), "."+name+"-")
		}
	}
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(stage, sub); err != nil {
		os.RemoveAll(stage)
		return "", err
	}
	if err := os.WriteFile(filepath.Join(stage, ".runx-bundled"), []byte(fingerprint), 0o644); err != nil {
		os.RemoveAll(stage)
		return "", err
	}
	// A copy that differs from this binary's (edited by hand, or another
	// build of the same version) is replaced whole.
	_ = os.RemoveAll(dst)
	if err := os.Rename(stage, dst); err != nil {
		os.RemoveAll(stage)
		if _, statErr := os.Stat(marker); statErr == nil {
			return dst, nil // another process materialised it first
		}
		return "", err
	}
	return dst, nil
}

func fsDigest(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		h.Write([]byte(path + "\x00" + hex.EncodeToString(sum[:]) + "\n"))
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}
