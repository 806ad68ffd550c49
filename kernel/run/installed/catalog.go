package installed

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
)

// Where a listed skill comes from, and the trust tier runx states for
// the two sources no registry signs.
const (
	SkillSourceWorkspace = "workspace" // skills/<name>/ or skills/<publisher>/<name>/
	SkillSourceBundled   = "bundled"   // a core skill this runx carries
	SkillSourceInstalled = "installed" // .runx/added-skills/<publisher>/<name>/<version>/

	TrustLocal      = "local"       // the workspace's own: nobody signed it
	TrustFirstParty = "first_party" // carried in this runx binary
	// TrustUnverified is an installed skill whose signature does not
	// verify: no run binds it, whatever its record claims.
	TrustUnverified = "unverified"
)

// ListedSkill is one skill `runx list skills` shows: how to run it, where
// it comes from, the trust tier that source carries and each method with
// its description. A skill that does not load (or, installed, does not
// verify) is listed with the typed error that refuses it.
type ListedSkill struct {
	Ref         string                `json:"ref"`
	Name        string                `json:"name"`
	Source      string                `json:"source"`
	TrustTier   string                `json:"trust_tier"`
	Dir         string                `json:"dir"`
	Description string                `json:"description,omitempty"`
	Methods     []ListedMethod        `json:"methods"`
	Registry    *pkg.RegistryIdentity `json:"registry,omitempty"`
	Error       *contract.ErrorBody   `json:"error,omitempty"`
}

// ListedMethod is one method of a listed skill.
type ListedMethod struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// WorkspaceSkills are the workspace's skills/<name>/ and
// skills/<publisher>/<name>/.
func (s Skills) WorkspaceSkills() ([]ListedSkill, error) {
	root := filepath.Join(s.Workspace, "skills")
	var refs []string
	for _, pattern := range []string{"*/SKILL.md", "*/*/SKILL.md"} {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			rel, err := filepath.Rel(root, filepath.Dir(m))
			if err != nil {
				return nil, err
			}
			refs = append(refs, filepath.ToSlash(rel))
		}
	}
	sort.Strings(refs)
	out := make([]ListedSkill, 0, len(refs))
	for _, ref := range refs {
		dir := filepath.Join(root, filepath.FromSlash(ref))
		l := ListedSkill{Ref: ref, Source: SkillSourceWorkspace, TrustTier: TrustLocal, Dir: dir}
		p, err := pkg.Load(dir, s.Options)
		out = append(out, Describe(l, p, err))
	}
	return out, nil
}

// Describe fills l from p, or with err when p did not load.
func Describe(l ListedSkill, p *pkg.Package, err error) ListedSkill {
	l.Methods = []ListedMethod{}
	if err != nil {
		l.Error = contract.BodyOf(err)
		return l
	}
	l.Name, l.Description = p.Name, p.Description
	for _, m := range p.Methods {
		l.Methods = append(l.Methods, ListedMethod{Name: m.Name, Description: m.Description})
	}
	return l
}

// Installed lists every version directory of the project's added skills,
// each verified against its signature.json as a bind would.
func (s Skills) Installed() ([]ListedSkill, error) {
	root := s.AddedSkills()
	matches, err := filepath.Glob(filepath.Join(root, "*", "*", "*"))
	if err != nil {
		return nil, err
	}
	var out []ListedSkill
	for _, dir := range matches {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		rel, _ := filepath.Rel(root, dir)
		ref := filepath.ToSlash(rel)
		if i := strings.LastIndexByte(ref, '/'); i >= 0 {
			ref = ref[:i] + "@" + ref[i+1:]
		}
		l := ListedSkill{Ref: ref, Source: SkillSourceInstalled, TrustTier: TrustUnverified, Dir: dir}
		p, err := s.Load(dir)
		if err == nil {
			l.TrustTier, l.Registry = p.Registry.TrustTier, p.Registry
		}
		out = append(out, Describe(l, p, err))
	}
	sort.Slice(out, func(i, j int) bool { return lessInstalled(out[i], out[j]) })
	return out, nil
}

// lessInstalled orders installed skills by publisher/name, then newest
// version first.
func lessInstalled(a, b ListedSkill) bool {
	an, av, _ := strings.Cut(a.Ref, "@")
	bn, bv, _ := strings.Cut(b.Ref, "@")
	if an != bn {
		return an < bn
	}
	if c, err := compareVersions(av, bv); err == nil {
		return c > 0
	}
	return av > bv
}
