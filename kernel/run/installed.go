package run

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/sdk/errcode"
)

// RegistryRef names a registry skill: publisher/name, at a version or,
// without one, the newest this runx reads.
type RegistryRef struct {
	Publisher string `json:"publisher"`
	Name      string `json:"name"`
	Version   string `json:"version,omitempty"`
}

// String is the ref as written: publisher/name[@version].
func (r RegistryRef) String() string {
	if r.Version == "" {
		return r.Publisher + "/" + r.Name
	}
	return r.Publisher + "/" + r.Name + "@" + r.Version
}

// ParseRegistryRef reads a skill path (without #method) as a registry
// ref: registry:<publisher>/<name>[@version], or the same without the
// prefix. runx/<name> is a core skill and never a registry ref; a path
// (./x, /x) never is either. ok is false for anything else; err is set
// when the path is a registry ref that is malformed.
func ParseRegistryRef(path string) (RegistryRef, bool, error) {
	explicit := strings.HasPrefix(path, "registry:")
	body := strings.TrimPrefix(path, "registry:")
	if !explicit && (strings.HasPrefix(body, "runx/") || strings.HasPrefix(body, ".") || filepath.IsAbs(body)) {
		return RegistryRef{}, false, nil
	}
	name, version, hasVersion := strings.Cut(body, "@")
	publisher, skill, ok := strings.Cut(name, "/")
	if !ok && !explicit {
		return RegistryRef{}, false, nil
	}
	if !explicit && !hasVersion && strings.Contains(skill, "/") {
		return RegistryRef{}, false, nil
	}
	ref := RegistryRef{Publisher: publisher, Name: skill, Version: version}
	switch {
	case !ok || !registryName(publisher) || !registryName(skill):
		return ref, true, contract.Errorf(errcode.RegistryRefInvalid, "%q is not a registry ref: write <publisher>/<name>[@version], each name lowercase letters, digits and -", path)
	case hasVersion:
		if _, err := compareVersions(version, version); err != nil {
			return ref, true, contract.Errorf(errcode.RegistryRefInvalid, "%q names version %q, which is not a semantic version (MAJOR.MINOR.PATCH)", path, version)
		}
	}
	return ref, true, nil
}

// registryName is a publisher or skill name a registry serves: lowercase
// letters, digits and inner hyphens, at most 64 bytes. Nothing else can
// name a directory of the added skills.
func registryName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// addedSkills is the project's added-skills directory.
func (r *skillResolver) addedSkills() string {
	return filepath.Join(r.ProjectDir, registry.AddedSkillsDir)
}

// installedDir is where ref's version is installed.
func (r *skillResolver) installedDir(ref RegistryRef) string {
	return filepath.Join(r.addedSkills(), ref.Publisher, ref.Name, ref.Version)
}

// ownCopy is the workspace's own copy of a registry skill,
// skills/<publisher>/<name>/, which answers every ref to it.
func (r *skillResolver) ownCopy(ref RegistryRef) (string, bool) {
	dir := filepath.Join(r.Workspace, "skills", ref.Publisher, ref.Name)
	_, err := os.Stat(filepath.Join(dir, "SKILL.md"))
	return dir, err == nil
}

// Unread is an installed version newer than the one a ref without a
// version took, passed over because this runx does not read it.
type Unread struct {
	Version string `json:"version"`
	Why     string `json:"why"`
}

// locateRegistry finds the directory a registry ref runs from: the
// workspace's own copy, else the installed version it pins, else (no
// version) the newest installed version this runx reads. Nothing is
// fetched here: a run reads only what was installed before it started.
func (r *skillResolver) locateRegistry(ref RegistryRef) (string, []Unread, error) {
	if dir, ok := r.ownCopy(ref); ok {
		return dir, nil, nil
	}
	if ref.Version != "" {
		dir := r.installedDir(ref)
		if _, err := os.Stat(dir); err != nil {
			return "", nil, r.notInstalled(ref)
		}
		return dir, nil, nil
	}
	versions, err := r.installedVersions(ref)
	if err != nil {
		return "", nil, err
	}
	var unread []Unread
	for _, v := range versions {
		pinned := ref
		pinned.Version = v
		dir := r.installedDir(pinned)
		if why := r.unreadable(dir); why != "" {
			unread = append(unread, Unread{Version: v, Why: why})
			continue
		}
		return dir, unread, nil
	}
	return "", unread, r.notInstalled(ref)
}

func (r *skillResolver) notInstalled(ref RegistryRef) error {
	return contract.Errorf(errcode.RegistrySkillNotInstalled, "registry skill %s is not installed in %s and no skills/%s/%s/ copy is in the workspace: install it with runx registry install %s, or run it with runx skill, which fetches it before the run", ref, r.addedSkills(), ref.Publisher, ref.Name, ref)
}

// installedVersions are the semantic versions installed for ref's
// publisher/name, newest first; a directory not named by one is ignored.
func (r *skillResolver) installedVersions(ref RegistryRef) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(r.addedSkills(), ref.Publisher, ref.Name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var versions []string
	for _, e := range entries {
		if _, err := compareVersions(e.Name(), e.Name()); e.IsDir() && err == nil {
			versions = append(versions, e.Name())
		}
	}
	sort.Slice(versions, func(i, j int) bool {
		c, _ := compareVersions(versions[i], versions[j])
		return c > 0
	})
	return versions, nil
}

// installedRoot reports whether dir is a version directory of the
// project's added skills, and which ref it holds.
func (r *skillResolver) installedRoot(dir string) (RegistryRef, bool) {
	if r.ProjectDir == "" {
		return RegistryRef{}, false
	}
	rel, err := filepath.Rel(r.addedSkills(), dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return RegistryRef{}, false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 3 {
		return RegistryRef{}, false
	}
	return RegistryRef{Publisher: parts[0], Name: parts[1], Version: parts[2]}, true
}

// underAddedSkills reports whether dir lies anywhere in the project's
// added skills.
func (r *skillResolver) underAddedSkills(dir string) bool {
	if r.ProjectDir == "" {
		return false
	}
	rel, err := filepath.Rel(r.addedSkills(), dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// load loads the package at dir. A package of the project's added skills
// is bound only once its signature.json verifies against its exact bytes
// under a key trusted for its publisher, at every load: an edited or
// unsigned copy is refused with a typed error and nothing of it runs. The
// package then carries the identity the signature states.
func (r *skillResolver) load(dir string) (*pkg.Package, error) {
	load := func() (*pkg.Package, error) { return pkg.Load(dir, loadOptions(r.RunxVersion, r.HomeDir)) }
	if r.underAddedSkills(dir) {
		load = func() (*pkg.Package, error) { return r.loadInstalled(dir) }
	}
	p, err := load()
	if err != nil {
		return nil, err
	}
	if err := connector.CheckPins(p); err != nil {
		return nil, err
	}
	return p, nil
}

// loadInstalled verifies and loads one installed version directory.
func (r *skillResolver) loadInstalled(dir string) (*pkg.Package, error) {
	ref, ok := r.installedRoot(dir)
	if !ok {
		return nil, contract.Errorf(errcode.RegistryRefInvalid, "%s lies in the project's added skills but is not a <publisher>/<name>/<version> directory of it; run an installed skill by its ref", dir)
	}
	id, err := verifyInstalled(r.HomeDir, dir)
	if err != nil {
		return nil, err
	}
	// VerifyInstalled holds the record to the directory it installs at;
	// this states the same rule here, where the identity is taken.
	if id.Publisher != ref.Publisher || id.Name != ref.Name || id.Version != ref.Version {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "%s holds the signed package %s, not %s: remove the directory and install the skill again", dir, id.Ref(), ref)
	}
	p, err := pkg.Load(dir, loadOptions(r.RunxVersion, r.HomeDir))
	if err != nil {
		return nil, err
	}
	p.Registry = id
	return p, nil
}

// loadPackage loads the package a run recorded at dir as a bind does,
// verifying it again when the project's added skills hold it.
func (e *engine) loadPackage(dir string) (*pkg.Package, error) {
	if e.Resolver == nil {
		return pkg.Load(dir, loadOptions(e.RunxVersion, e.HomeDir))
	}
	return e.Resolver.load(dir)
}

// registryPackage is what a run's receipt names of the registry package
// it bound, nil for any other package.
func registryPackage(p *pkg.Package) *receipt.RegistryPackage {
	if p == nil || p.Registry == nil {
		return nil
	}
	id := p.Registry
	return &receipt.RegistryPackage{ContentDigest: id.ContentDigest, Name: id.Name, Publisher: id.Publisher,
		Registry: id.Registry, TrustTier: id.TrustTier, Version: id.Version}
}

// compareVersions orders two semantic versions by precedence; a string
// that is not one is an error.
func compareVersions(a, b string) (int, error) {
	va, err := semver.Parse(a)
	if err != nil {
		return 0, err
	}
	vb, err := semver.Parse(b)
	if err != nil {
		return 0, err
	}
	return va.Compare(vb), nil
}
