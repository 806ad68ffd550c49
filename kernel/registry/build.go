package registry

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// anyRunx is the runx version packaging loads a skill as: packaging checks
// that minimum_runx is well formed, not that this runx meets it, since a
// registry holds packages for runx versions newer than itself. Whether a
// runx can run a package is decided when it runs it.
const anyRunx = "4294967295.0.0"

// build makes the artifact of kind from files, exec naming those whose
// executable bit is set. A skill is loaded by
// kernel/pkg from loadDir when it is given (it must hold exactly files),
// else from a temporary copy; a connector always from a copy without
// runx.package.json, since its connector digest covers its root's files.
func build(kind Kind, files map[string][]byte, exec map[string]bool, loadDir string) (*Package, error) {
	if kind != KindSkill && kind != KindConnector {
		return nil, contract.Errorf(errcode.RegistryPackageInvalid, "package kind %q is neither %s nor %s", kind, KindSkill, KindConnector)
	}
	if err := checkPaths(files); err != nil {
		return nil, err
	}
	if err := checkLimits(files); err != nil {
		return nil, err
	}
	if exec[ManifestFile] {
		return nil, contract.Errorf(errcode.RegistryPackageInvalid, "the package's %s is executable; packaging writes it, as a plain file", ManifestFile)
	}
	given, hasManifest := files[ManifestFile]
	body := files
	if hasManifest {
		body = make(map[string][]byte, len(files))
		for p, b := range files {
			if p != ManifestFile {
				body[p] = b
			}
		}
	}
	dir := loadDir
	if dir == "" || kind != KindSkill {
		tmp, err := materialize(body)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	var err error
	p := &Package{Kind: kind, PackageFormat: PackageFormat, Methods: []Method{}, Connectors: []ConnectorBinding{}}
	if kind == KindSkill {
		err = p.readSkill(dir)
	} else {
		err = p.readConnector(dir, body)
	}
	if err != nil {
		return nil, unmaterialized(err, dir)
	}
	manifest, err := p.manifest()
	if err != nil {
		return nil, err
	}
	if hasManifest && string(given) != string(manifest) {
		return nil, contract.Errorf(errcode.RegistryPackageInvalid, "the package's %s is not the one its files make (%s); remove it, packaging writes it", ManifestFile, manifest)
	}
	p.Files = make([]File, 0, len(body)+1)
	for fp, b := range body {
		p.Files = append(p.Files, File{Path: fp, Digest: canon.DigestBytes(b), Size: int64(len(b)), Executable: exec[fp]})
	}
	p.Files = append(p.Files, File{Path: ManifestFile, Digest: canon.DigestBytes(manifest), Size: int64(len(manifest))})
	sort.Slice(p.Files, func(i, j int) bool { return p.Files[i].Path < p.Files[j].Path })
	if p.ContentDigest, err = ContentDigest(p.Files); err != nil {
		return nil, err
	}
	if kind == KindConnector {
		hex, _ := canon.DigestHex(p.ContentDigest)
		p.Version = "sha-" + hex[:12]
	}
	return p, nil
}

// ContentDigest is the digest over a package's file list, the package's
// identity: sdk/canon's digest of [{path, digest, size}] sorted by path.
func ContentDigest(files []File) (string, error) {
	return canon.Digest(files)
}

// manifest is runx.package.json's bytes: canonical JSON of the package's
// kind, name, version (a skill's) and format.
func (p *Package) manifest() ([]byte, error) {
	return manifestBytes(p.Kind, p.Name, p.Version)
}

func manifestBytes(kind Kind, name, version string) ([]byte, error) {
	m := map[string]any{"kind": kind, "name": name, "package_format": PackageFormat}
	if kind == KindSkill {
		m["version"] = version
	}
	return canon.Canonical(m)
}

// readSkill loads the skill in dir with kernel/pkg and takes what the
// artifact states from it.
func (p *Package) readSkill(dir string) error {
	sp, err := pkg.Load(dir, pkg.LoadOptions{RunxVersion: anyRunx})
	if err != nil {
		return err
	}
	if err := checkName(sp.Name, "skill name"); err != nil {
		return err
	}
	p.Name, p.Description = sp.Name, sp.Description
	if v, ok := sp.Metadata["version"]; ok {
		s, isString := v.(string)
		if !isString || !semver.Valid(s) {
			return contract.Errorf(errcode.RegistryVersionInvalid, "skill %s declares version %v in its SKILL.md front matter, which is not semver (MAJOR.MINOR.PATCH); quote it as a string if it is", sp.Name, v)
		}
		p.Version = s
	}
	for _, m := range sp.Methods {
		if len(sp.Methods) > 1 && strings.TrimSpace(m.Description) == "" {
			return contract.Errorf(errcode.MethodDescriptionMissing, "method %q of skill %s has no description; a package with several methods describes each", m.Name, sp.Name)
		}
		p.Methods = append(p.Methods, Method{Name: m.Name, Description: m.Description})
	}
	p.Connectors = skillBindings(sp)
	return nil
}

// skillBindings lists the connectors a skill binds: those it carries, with
// their digests, and those its steps call without carrying them, which the
// runtime provides.
func skillBindings(sp *pkg.Package) []ConnectorBinding {
	out := []ConnectorBinding{}
	seen := map[string]bool{}
	for name, c := range sp.Connectors {
		seen[name] = true
		out = append(out, ConnectorBinding{Ref: c.ID + "@" + c.Version, Version: c.Version, ManifestDigest: c.ManifestDigest, ConnectorDigest: c.ConnectorDigest, RuntimeCapability: ConnectorRequest})
	}
	called := func(ref string) {
		i := strings.LastIndexByte(ref, '/')
		if i <= 0 {
			return
		}
		name := ref[:i]
		if !seen[name] {
			seen[name] = true
			out = append(out, ConnectorBinding{Ref: name, RuntimeCapability: name})
		}
	}
	for _, m := range sp.Methods {
		for _, st := range m.Steps {
			if st.Operation != nil {
				called(st.Operation.Connector + "/" + st.Operation.Operation)
			}
			var calls *pkg.Calls
			if st.Agent != nil {
				calls = st.Agent.Calls
			}
			if st.Script != nil {
				calls = st.Script.Calls
			}
			if calls != nil {
				for _, op := range calls.Operations {
					called(op)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out
}

// readConnector loads the connector at dir's root; its manifest id is its
// whole name.
func (p *Package) readConnector(dir string, files map[string][]byte) error {
	src, ok := files[pkg.ConnectorFile]
	if !ok {
		return contract.Errorf(errcode.RegistryPackageInvalid, "a connector package holds %s at its root", pkg.ConnectorFile)
	}
	// Only the id is read here, to name the connector: pkg.LoadConnector
	// then reads the whole manifest strictly and refuses an id that is not
	// the name given.
	var head struct {
		ID string `yaml:"id"`
	}
	if err := yaml.Unmarshal(src, &head); err != nil || head.ID == "" {
		return contract.Errorf(errcode.ConnectorInvalid, "%s needs id: the connector's whole name", pkg.ConnectorFile)
	}
	if err := checkConnectorName(head.ID); err != nil {
		return err
	}
	c, err := pkg.LoadConnector(dir, head.ID)
	if err != nil {
		return err
	}
	p.Name = c.ID
	for _, op := range c.Operations {
		p.Methods = append(p.Methods, Method{Name: op.Name, Description: op.Summary})
		p.Operations = append(p.Operations, Operation{Name: op.Name, Verb: op.Verb, Digest: op.Digest})
	}
	p.Connectors = []ConnectorBinding{{Ref: c.ID + "@" + c.Version, Version: c.Version, ManifestDigest: c.ManifestDigest, ConnectorDigest: c.ConnectorDigest, RuntimeCapability: ConnectorRequest}}
	return nil
}

// checkName refuses a name that cannot be one directory of an install:
// lower-case letters, digits, '.', '_' and '-', starting with a letter or a
// digit, at most 64 bytes.
func checkName(s, what string) error {
	if !validName(s) {
		return contract.Errorf(errcode.RegistryNameInvalid, "%s %q cannot name a registry package: use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64", what, s)
	}
	return nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '.' || r == '_' || r == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// checkConnectorName accepts a connector name: one name, or two joined by
// one '/' (google/calendar).
func checkConnectorName(s string) error {
	segs := strings.Split(s, "/")
	if len(segs) > 2 || path.Clean(s) != s {
		return contract.Errorf(errcode.RegistryNameInvalid, "connector name %q cannot name a registry package: one name, or two joined by one '/'", s)
	}
	for _, seg := range segs {
		if err := checkName(seg, "connector name"); err != nil {
			return err
		}
	}
	return nil
}

// unmaterialized names files in a refusal by their package paths, not by
// the temporary directory kernel/pkg read them from.
func unmaterialized(err error, dir string) error {
	var pe *pkg.Error
	if !errors.As(err, &pe) {
		return err
	}
	cp := *pe
	prefix := dir + string(filepath.Separator)
	cp.File = filepath.ToSlash(strings.TrimPrefix(cp.File, prefix))
	cp.Message = strings.ReplaceAll(cp.Message, prefix, "")
	cp.Message = strings.ReplaceAll(cp.Message, dir, ".")
	return &cp
}
