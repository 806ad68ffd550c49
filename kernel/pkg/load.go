package pkg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/errcode"
)

// Package file names.
const (
	SkillFile   = "SKILL.md"
	ProfileFile = "run.yaml"
)

// LoadOptions configures Load.
type LoadOptions struct {
	// RunxVersion is the running runx's version (e.g. "0.1.0"); a package
	// whose minimum_runx is newer is refused.
	RunxVersion string
	// Cache, when set, keeps run.yaml's parsed document by package digest,
	// so an unchanged package is not parsed again (SharedPlanCache), and
	// lets the whole load be remembered while no file of the package
	// changes (loadcache.go).
	Cache *PlanCache
}

// Load reads and validates the package at ref: a package directory, or the
// SKILL.md inside one. A markdown file of any other name is not a package.
// Load only reads files; it runs nothing and reaches no network.
func Load(ref string, opts LoadOptions) (*Package, error) {
	runx, err := semver.Parse(opts.RunxVersion)
	if err != nil {
		return nil, fmt.Errorf("pkg: LoadOptions.RunxVersion: %w", err)
	}
	shown, err := packageDir(ref)
	if err != nil {
		return nil, err
	}
	dir, err := resolveDir(shown)
	if err != nil {
		return nil, fmt.Errorf("resolve package directory %s: %w", shown, err)
	}
	if opts.Cache != nil {
		return loadCached(shown, dir, runx, opts)
	}
	return load(shown, dir, runx, opts)
}

// load reads and validates the package in dir, shown as the caller named it.
func load(shown, dir string, runx semver.Version, opts LoadOptions) (*Package, error) {
	skillPath := filepath.Join(shown, SkillFile)
	skillSrc, err := readPackageFile(skillPath)
	if err != nil {
		return nil, err
	}
	if skillSrc == nil {
		return nil, refuse(errcode.PackageNotFound, "%s holds no %s, so it is not a skill package", shown, SkillFile)
	}
	doc, err := parseSkillMDCached(skillPath, skillSrc, opts.Cache)
	if err != nil {
		return nil, err
	}
	p := &Package{
		Dir:          dir,
		Name:         doc.name,
		Description:  doc.description,
		Manual:       doc.manual,
		ManualDigest: contentDigest([]byte(doc.manual)),
		Metadata:     doc.metadata,
	}

	profilePath := filepath.Join(shown, ProfileFile)
	profileSrc, err := readPackageFile(profilePath)
	if err != nil {
		return nil, err
	}
	if profileSrc == nil {
		if err := refuseMisnamedProfile(shown); err != nil {
			return nil, err
		}
		if err := refuseCatalogRoot(shown); err != nil {
			return nil, err
		}
		if err := p.useImplicitMethod(skillPath); err != nil {
			return nil, err
		}
	} else {
		prof, digest, err := readProfileCached(profilePath, dir, profileSrc, p.Name, runx, opts)
		if err != nil {
			return nil, err
		}
		p.Digest = digest
		p.MinimumRunx, p.DefaultMethod, p.Methods = prof.minimumRunx, prof.defaultMethod, prof.methods
		p.minimumRunxPos = prof.minimumRunxPos
		p.ConnectorPins = prof.pins
		if len(p.Methods) == 1 && p.Methods[0].Description == "" {
			p.Methods[0].Description = p.Description
		}
		if err := checkModulesExist(profilePath, dir, p.Methods); err != nil {
			return nil, err
		}
	}
	if p.Connectors, err = loadPackageConnectors(dir); err != nil {
		return nil, err
	}
	if p.Schemas, err = loadPackageSchemas(dir); err != nil {
		return nil, err
	}
	if p.Digest == "" {
		if p.Digest, err = PackageDigest(dir); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// readProfileCached decodes run.yaml, taking its parsed document from the cache
// when the package is unchanged. The digest is taken before the file is
// used, and the key binds the exact bytes read too, so a file changing
// between the two cannot be served a reading of other bytes.
func readProfileCached(path, dir string, src []byte, name string, runx semver.Version, opts LoadOptions) (*profile, string, error) {
	if opts.Cache == nil {
		prof, err := decodeProfile(path, src, name, runx, opts.RunxVersion)
		return prof, "", err
	}
	digest, err := PackageDigest(dir)
	if err != nil {
		return nil, "", err
	}
	key := planKey(digest, ProfileFile, src)
	root := opts.Cache.get(key)
	if root == nil {
		if root, err = readProfile(path, src, name, runx, opts.RunxVersion); err != nil {
			return nil, "", err
		}
		opts.Cache.put(key, root)
	} else if v, pos, ok := scanMinimumRunx(src); ok {
		if err := checkMinimumRunx(path, name, v, pos, runx, opts.RunxVersion); err != nil {
			return nil, "", err
		}
	}
	prof, err := decodeProfileRoot(path, root, name, runx, opts.RunxVersion)
	return prof, digest, err
}

// packageDir resolves ref to the package directory as the caller wrote it, so
// messages show paths the caller recognizes.
func packageDir(ref string) (string, error) {
	if ref == "" {
		return "", refuse(errcode.PackageNotFound, "no package named; pass a package directory or its SKILL.md")
	}
	info, err := os.Stat(ref)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", refuse(errcode.PackageNotFound, "no package at %s", ref)
	case err != nil:
		return "", err
	case info.IsDir():
		return filepath.Clean(ref), nil
	case filepath.Base(ref) == SkillFile:
		return filepath.Dir(ref), nil
	}
	return "", refuse(errcode.PackageNotFound, "%s is not a package: pass a directory holding %s, or that %s", ref, SkillFile, SkillFile)
}

// resolveDir is the package directory shown names: absolute, symbolic
// links resolved.
func resolveDir(shown string) (string, error) {
	dir, err := filepath.Abs(shown)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(dir)
}

// MaxPackageFileBytes bounds each package file runx reads as text
// (SKILL.md, run.yaml, tests/*.yaml, connector.yaml) before it reads it.
// The YAML in them is held to the smaller MaxYAMLBytes.
const MaxPackageFileBytes = 1 << 20

// readPackageFile reads a file of the package, returning nil when it does
// not exist. A symbolic link is refused, as it is anywhere in a package.
func readPackageFile(path string) ([]byte, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, refuse(errcode.PackageSymlinkRefused, "%s is a symbolic link; packages hold regular files only", path)
	}
	if !info.Mode().IsRegular() {
		return nil, refuse(errcode.PackageFileUnsupported, "%s is not a regular file", path)
	}
	raw, err := readStamped(path, info, MaxPackageFileBytes)
	if errors.Is(err, ErrFileOverLimit) {
		return nil, refuse(errcode.PackageFileTooLarge, "%s is over the %d byte ceiling on a package file (MaxPackageFileBytes); move large content into a file the package reads at run time", path, MaxPackageFileBytes)
	}
	return raw, err
}

// refuseMisnamedProfile catches run.yml, which would otherwise silently turn
// a package with methods into an agent-only one.
func refuseMisnamedProfile(dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, "run.yml")); err == nil {
		return refuse(errcode.RunxYAMLInvalid, "%s holds run.yml; runx reads the execution profile from %s only, so rename it", dir, ProfileFile)
	}
	return nil
}

// useImplicitMethod gives a package without run.yaml its one method: an
// agent turn whose task is the manual.
func (p *Package) useImplicitMethod(skillPath string) error {
	if strings.TrimSpace(p.Manual) == "" {
		return refuseAt(skillPath, Position{}, errcode.SkillMDInvalid,
			"SKILL.md has no manual after its front matter, and without run.yaml the manual is the agent's task")
	}
	p.Implicit = true
	p.Methods = []*Method{{
		Name:        ImplicitMethodName,
		Description: p.Description,
		Steps: []*Step{{
			ID:    ImplicitStepID,
			Kind:  KindAgent,
			Agent: &AgentStep{Task: p.Manual},
		}},
	}}
	return nil
}

// checkModulesExist refuses a module or script step whose file is missing,
// at load rather than halfway through a run.
func checkModulesExist(profilePath, dir string, methods []*Method) error {
	checked := map[string]bool{}
	for _, m := range methods {
		for _, st := range m.Steps {
			mod := ""
			switch {
			case st.Tool != nil && st.Tool.Module != nil:
				mod = st.Tool.Module.Module
			case st.Script != nil:
				mod = st.Script.Module
			default:
				continue
			}
			if checked[mod] {
				continue
			}
			info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(mod)))
			if err != nil || !info.Mode().IsRegular() {
				return refuseAt(profilePath, st.Pos, errcode.StepInvalid, "step %q names module %s, which is not a regular file in the package", st.ID, mod)
			}
			checked[mod] = true
		}
	}
	return nil
}

// refuseCatalogRoot refuses a catalog workspace's root as a package: beside a
// skills/ catalog, a root SKILL.md is the workspace's manual for agents, not
// a package around the repository. A root run.yaml opts the root in.
func refuseCatalogRoot(shown string) error {
	info, err := os.Stat(filepath.Join(shown, "skills"))
	if err != nil || !info.IsDir() {
		return nil
	}
	return refuse(errcode.PackageCatalogRoot, "%s is a catalog workspace's root: beside skills/, its %s is the workspace's manual, not a package; run a skill under skills/, or add a %s to make the root a package", shown, SkillFile, ProfileFile)
}
