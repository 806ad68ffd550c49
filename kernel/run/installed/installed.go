package installed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
)

// Skills is where a project's registry skills are read from: the
// workspace (whose skills/<publisher>/<name>/ is the workspace's own
// copy), the project's .runx (whose added-skills/ holds the installed
// versions) and the runx home (whose trust store verifies them).
type Skills struct {
	Workspace string
	// ProjectDir is the project's .runx, whose added-skills/ holds the
	// registry skills installed before a run.
	ProjectDir  string
	HomeDir     string
	RunxVersion string
	// Options loads a package as every run of this runx does.
	Options pkg.LoadOptions
}

// AddedSkills is the project's added-skills directory.
func (s Skills) AddedSkills() string {
	return filepath.Join(s.ProjectDir, registry.AddedSkillsDir)
}

// Dir is where ref's version is installed.
func (s Skills) Dir(ref RegistryRef) string {
	return filepath.Join(s.AddedSkills(), ref.Publisher, ref.Name, ref.Version)
}

// OwnCopy is the workspace's own copy of a registry skill,
// skills/<publisher>/<name>/, which answers every ref to it.
func (s Skills) OwnCopy(ref RegistryRef) (string, bool) {
	dir := filepath.Join(s.Workspace, "skills", ref.Publisher, ref.Name)
	_, err := os.Stat(filepath.Join(dir, "SKILL.md"))
	return dir, err == nil
}

// Unread is an installed version newer than the one a ref without a
// version took, passed over because this runx does not read it.
type Unread struct {
	Version string `json:"version"`
	Why     string `json:"why"`
}

// Locate finds the directory a registry ref runs from: the workspace's
// own copy, else the installed version it pins, else (no version) the
// newest installed version this runx reads. Nothing is fetched here: a
// run reads only what was installed before it started.
func (s Skills) Locate(ref RegistryRef) (string, []Unread, error) {
	if dir, ok := s.OwnCopy(ref); ok {
		return dir, nil, nil
	}
	if ref.Version != "" {
		dir := s.Dir(ref)
		if _, err := os.Stat(dir); err != nil {
			return "", nil, s.notInstalled(ref)
		}
		return dir, nil, nil
	}
	versions, err := s.versions(ref)
	if err != nil {
		return "", nil, err
	}
	var unread []Unread
	for _, v := range versions {
		pinned := ref
		pinned.Version = v
		dir := s.Dir(pinned)
		if why := s.unreadable(dir); why != "" {
			unread = append(unread, Unread{Version: v, Why: why})
			continue
		}
		return dir, unread, nil
	}
	return "", unread, s.notInstalled(ref)
}

func (s Skills) notInstalled(ref RegistryRef) error {
	return contract.Errorf(errcode.RegistrySkillNotInstalled, "registry skill %s is not installed in %s and no skills/%s/%s/ copy is in the workspace: install it with runx registry install %s, or run it with runx skill, which fetches it before the run", ref, s.AddedSkills(), ref.Publisher, ref.Name, ref)
}

// versions are the semantic versions installed for ref's publisher/name,
// newest first; a directory not named by one is ignored.
func (s Skills) versions(ref RegistryRef) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.AddedSkills(), ref.Publisher, ref.Name))
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

// unreadable says why this runx does not read the installed version at
// dir, or "" when it does: a package format newer than it reads, or a
// minimum_runx above it. A version that does not verify is not passed
// over here: a bind refuses it by name.
func (s Skills) unreadable(dir string) string {
	sig := filepath.Join(dir, registry.SignatureFile)
	if fi, err := os.Lstat(sig); err != nil || !fi.Mode().IsRegular() || fi.Size() > registry.MaxRecordBytes {
		return "" // the bind refuses it by name
	}
	raw, err := os.ReadFile(sig)
	if err != nil {
		return ""
	}
	var head struct {
		PackageFormat int `json:"package_format"`
	}
	if json.Unmarshal(raw, &head) == nil && head.PackageFormat > registry.PackageFormat {
		return fmt.Sprintf("package_format %d; this runx reads %d", head.PackageFormat, registry.PackageFormat)
	}
	if _, err := pkg.Load(dir, s.Options); contract.CodeOf(err) == errcode.MinimumRunxUnsupported {
		return "needs a newer runx: " + contract.BodyOf(err).Message
	}
	return ""
}

// root reports whether dir is a version directory of the project's added
// skills, and which ref it holds.
func (s Skills) root(dir string) (RegistryRef, bool) {
	if s.ProjectDir == "" {
		return RegistryRef{}, false
	}
	rel, err := filepath.Rel(s.AddedSkills(), dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return RegistryRef{}, false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 3 {
		return RegistryRef{}, false
	}
	return RegistryRef{Publisher: parts[0], Name: parts[1], Version: parts[2]}, true
}

// Holds reports whether dir lies anywhere in the project's added skills.
func (s Skills) Holds(dir string) bool {
	if s.ProjectDir == "" {
		return false
	}
	rel, err := filepath.Rel(s.AddedSkills(), dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Load verifies and loads one installed version directory. It is bound
// only once its signature.json verifies against its exact bytes under a
// key trusted for its publisher: an edited or unsigned copy is refused
// with a typed error and nothing of it runs. The package then carries the
// identity the signature states.
func (s Skills) Load(dir string) (*pkg.Package, error) {
	ref, ok := s.root(dir)
	if !ok {
		return nil, contract.Errorf(errcode.RegistryRefInvalid, "%s lies in the project's added skills but is not a <publisher>/<name>/<version> directory of it; run an installed skill by its ref", dir)
	}
	id, err := verify(s.HomeDir, dir)
	if err != nil {
		return nil, err
	}
	// VerifyInstalled holds the record to the directory it installs at;
	// this states the same rule here, where the identity is taken.
	if id.Publisher != ref.Publisher || id.Name != ref.Name || id.Version != ref.Version {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "%s holds the signed package %s, not %s: remove the directory and install the skill again", dir, id.Ref(), ref)
	}
	p, err := pkg.Load(dir, s.Options)
	if err != nil {
		return nil, err
	}
	p.Registry = id
	return p, nil
}

// verify checks an installed version directory against its
// signature.json under the runx home's trust store (kernel/registry's
// VerifyInstalled: a key trusted for the publisher's namespace, then the
// exact bytes) and returns the identity the signature states.
func verify(home, dir string) (*pkg.RegistryIdentity, error) {
	trust, err := registry.LoadTrust(home)
	if err != nil {
		return nil, err
	}
	rec, err := registry.VerifyInstalled(dir, trust)
	if err != nil {
		return nil, err
	}
	if rec.Kind != registry.KindSkill {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "%s holds the signed %s %s, not a skill", dir, rec.Kind, rec.Ref)
	}
	return &pkg.RegistryIdentity{Registry: rec.Registry, Publisher: rec.Publisher, Name: rec.Name,
		Version: rec.Version, ContentDigest: rec.ContentDigest, TrustTier: string(rec.TrustTier)}, nil
}
