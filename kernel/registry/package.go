package registry

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/errcode"
)

// Kind says what a package holds.
type Kind string

// The kinds of package a registry holds.
const (
	KindSkill     Kind = "skill"
	KindConnector Kind = "connector"
)

// PackageFormat is the package format this runx reads and writes. A record
// of a newer format is passed over by a ref without a version.
const PackageFormat = 1

// Files a package's root holds beside its own.
const (
	// ManifestFile marks an installed package's root; Build synthesizes it.
	ManifestFile = pkg.RegistryManifestFile
	// SignatureFile is the signed record, written by Install.
	SignatureFile = pkg.RegistrySignatureFile
)

// Directories of a project (.runx) that installs write.
const (
	AddedSkillsDir     = "added-skills"
	AddedConnectorsDir = pkg.AddedConnectorsDir
)

// ConnectorRequest is the runtime capability role that sends a manifest
// connector's requests (sdk/plugin's RoleConnectorRequest; a test holds the
// two equal, since this package does not link the plugin layer).
const ConnectorRequest = "connector.request"

// Limits on a package, checked before anything is read whole.
const (
	MaxFiles        = 1000
	MaxFileBytes    = 8 << 20
	MaxPackageBytes = 64 << 20
)

// Package is the publish artifact: what a registry stores and signs, and
// what `runx registry package --json` prints.
type Package struct {
	Kind        Kind     `json:"kind"`
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Methods     []Method `json:"methods"`
	// Connectors are the connectors a skill binds; a connector package
	// lists itself.
	Connectors []ConnectorBinding `json:"connectors"`
	// Operations are a connector package's operations with their digests.
	Operations    []Operation `json:"operations,omitempty"`
	Files         []File      `json:"files"`
	ContentDigest string      `json:"content_digest"`
	PackageFormat int         `json:"package_format"`
	// Excluded names what the package directory held and the package rules
	// leave out (a directory ends in "/"). It is not part of the package.
	Excluded []string `json:"excluded,omitempty"`
}

// Method is one entry point: a skill's method or a connector's operation.
type Method struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ConnectorBinding is one connector a package binds.
type ConnectorBinding struct {
	Ref               string `json:"ref"`
	Version           string `json:"version,omitempty"`
	ManifestDigest    string `json:"manifest_digest,omitempty"`
	ConnectorDigest   string `json:"connector_digest,omitempty"`
	RuntimeCapability string `json:"runtime_capability"`
}

// Operation is one operation of a connector package.
type Operation struct {
	Name   string `json:"name"`
	Verb   string `json:"verb"`
	Digest string `json:"digest"`
}

// File is one file of a package.
type File struct {
	Path   string `json:"path"` // slash-separated, relative, clean
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
	// Executable is the one mode bit a package carries: the file is
	// installed 0755 rather than 0644 (a connector's process tool). The
	// content digest covers it.
	Executable bool `json:"executable,omitempty"`
}

// Build reads the package at ref: a skill directory, its SKILL.md, a
// connector directory or its connector.yaml. It writes nothing.
func Build(ref string) (*Package, error) {
	dir, kind, err := locate(ref)
	if err != nil {
		return nil, err
	}
	// The directory named may be reached through a link; what it holds
	// may not be one.
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	t, err := readTree(dir, false)
	if err != nil {
		return nil, err
	}
	p, err := build(kind, t.files, t.executable, "")
	if err != nil {
		return nil, err
	}
	p.Excluded = t.excluded
	return p, nil
}

// BuildFiles builds the artifact of kind from files given as bytes by slash
// path: a publish the server reads, or files an installer staged. The same
// rules apply as to Build, and a path that names nothing inside the package
// is refused. executable names the files whose executable bit is set; each
// must be one of files.
func BuildFiles(kind Kind, files map[string][]byte, executable ...string) (*Package, error) {
	exec := make(map[string]bool, len(executable))
	for _, p := range executable {
		if _, ok := files[p]; !ok {
			return nil, contract.Errorf(errcode.RegistryPathInvalid, "package path %q is named executable and is no file of the package", p)
		}
		exec[p] = true
	}
	return buildFiles(kind, files, exec, "")
}

// Executables lists the package's files whose executable bit is set, as
// BuildFiles takes them.
func (p *Package) Executables() []string {
	var out []string
	for _, f := range p.Files {
		if f.Executable {
			out = append(out, f.Path)
		}
	}
	return out
}

// buildFiles is BuildFiles; a skill whose files already sit in loadDir
// (staged by an install) is loaded from there rather than written out again.
func buildFiles(kind Kind, files map[string][]byte, exec map[string]bool, loadDir string) (*Package, error) {
	in := make(map[string][]byte, len(files))
	var excluded []string
	for path, b := range files {
		if err := checkPath(path); err != nil {
			return nil, err
		}
		if why := excludedPath(path); why != "" {
			excluded = append(excluded, why)
			continue
		}
		in[path] = b
	}
	p, err := build(kind, in, exec, loadDir)
	if err != nil {
		return nil, err
	}
	p.Excluded = sortedUnique(excluded)
	return p, nil
}

// CheckPublish refuses a package no registry may publish: a skill whose
// SKILL.md declares no semver version. The publish paths call it.
func (p *Package) CheckPublish() error {
	if p.Kind == KindSkill && p.Version == "" {
		return contract.Errorf(errcode.RegistryVersionInvalid, "skill %s declares no version: add version: MAJOR.MINOR.PATCH to its SKILL.md front matter before publishing", p.Name)
	}
	if p.Kind == KindSkill && !semver.Valid(p.Version) {
		return contract.Errorf(errcode.RegistryVersionInvalid, "skill %s declares version %q, which is not semver (MAJOR.MINOR.PATCH)", p.Name, p.Version)
	}
	return nil
}

// locate resolves ref to a package directory and its kind.
func locate(ref string) (string, Kind, error) {
	if ref == "" {
		return "", "", contract.Errorf(errcode.RegistryPackageInvalid, "no package named: pass a skill directory, its %s, or a connector directory", pkg.SkillFile)
	}
	info, err := os.Stat(ref)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", contract.Errorf(errcode.RegistryPackageInvalid, "no package at %s", ref)
	}
	if err != nil {
		return "", "", err
	}
	if !info.IsDir() {
		switch filepath.Base(ref) {
		case pkg.SkillFile:
			return filepath.Dir(ref), KindSkill, nil
		case pkg.ConnectorFile:
			return filepath.Dir(ref), KindConnector, nil
		}
		return "", "", contract.Errorf(errcode.RegistryPackageInvalid, "%s is not a package: pass a directory holding %s or %s, or that file", ref, pkg.SkillFile, pkg.ConnectorFile)
	}
	skill := isFile(filepath.Join(ref, pkg.SkillFile))
	conn := isFile(filepath.Join(ref, pkg.ConnectorFile))
	switch {
	case skill && conn:
		return "", "", contract.Errorf(errcode.RegistryPackageInvalid, "%s holds both %s and %s: a package is a skill or a connector; name the one you mean", ref, pkg.SkillFile, pkg.ConnectorFile)
	case skill:
		return ref, KindSkill, nil
	case conn:
		return ref, KindConnector, nil
	}
	return "", "", contract.Errorf(errcode.RegistryPackageInvalid, "%s holds neither %s nor %s, so it is not a package", ref, pkg.SkillFile, pkg.ConnectorFile)
}

func isFile(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && !info.IsDir()
}
