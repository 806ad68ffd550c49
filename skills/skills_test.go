package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg"
)

// auditRunx is the runx the audit loads the core skills as: the release
// that carries them.
const auditRunx = "0.1.0"

// residue marks builder residue or a placeholder target in a file a skill
// runs or tests with; SKILL.md is prose and may name these words.
var residue = regexp.MustCompile(`\b(TODO|FIXME|XXX|TBD)\b|(?i)placeholder|lorem ipsum|example\.(com|org)|changeme`)

// moduleImport is a relative static import in an ES module.
var moduleImport = regexp.MustCompile(`(?m)(?:from|import)\s*["'](\./[^"']+)["']`)

// TestCoreSkillsMeetTheBuilderBar holds every skill the binary carries to
// the builder bar: a manual, a description on every method, least authority
// stated on every method (none where nothing in it can change anything),
// only files used at execution time, tests present, and no residue or
// placeholder. That the tests pass is TestMaintainedSkillsPassTheirOwnTests
// (cmd/runx), which runs `runx test` over each of them.
func TestCoreSkillsMeetTheBuilderBar(t *testing.T) {
	entries, err := fs.ReadDir(Core(), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 5 {
		t.Fatalf("the binary carries %d skills: the walk is broken", len(entries))
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			for _, f := range auditSkill(e.Name()) {
				t.Error(f)
			}
		})
	}
}

// auditSkill returns what keeps the core skill in dir from the builder bar.
func auditSkill(dir string) []string {
	a := &audit{root: dir, used: map[string]bool{}}
	p := a.pkg(".", true)
	if p == nil {
		return a.findings
	}
	if p.Name != filepath.Base(dir) {
		a.fail("SKILL.md names the skill %q, not its directory's name", p.Name)
	}
	tests, _ := filepath.Glob(filepath.Join(dir, "tests", "*.yaml"))
	if len(tests) == 0 {
		a.fail("no tests: a core skill has tests/*.yaml that runx test runs")
	}
	var testText strings.Builder
	for _, f := range tests {
		a.used[a.rel(f)] = true
		b, _ := os.ReadFile(f)
		if m := residue.Find(b); m != nil {
			a.fail("%s holds builder residue or a placeholder (%q)", a.rel(f), m)
		}
		testText.Write(b)
		testText.WriteByte('\n')
		if m := regexp.MustCompile(`(?m)^package:\s*(\S+)`).FindSubmatch(b); m != nil {
			a.pkg(string(m[1]), false)
		}
	}
	a.walk(func(rel string) {
		if !a.used[rel] && strings.HasPrefix(rel, "fixtures/") && strings.Contains(testText.String(), rel) {
			a.used[rel] = true
		}
	})
	a.walk(func(rel string) {
		if !a.used[rel] {
			a.fail("%s is not used at execution time (a step, a test or a loaded connector names it): remove it", rel)
		}
	})
	return a.findings
}

type audit struct {
	root     string
	used     map[string]bool // package-relative slash paths
	findings []string
}

func (a *audit) fail(format string, args ...any) {
	a.findings = append(a.findings, a.root+": "+fmt.Sprintf(format, args...))
}

func (a *audit) rel(p string) string {
	r, _ := filepath.Rel(a.root, p)
	return filepath.ToSlash(r)
}

// walk calls visit with every file of the skill, in order.
func (a *audit) walk(visit func(rel string)) {
	var files []string
	_ = filepath.WalkDir(a.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, a.rel(p))
		}
		return nil
	})
	sort.Strings(files)
	for _, f := range files {
		visit(f)
	}
}

// pkg loads the package at sub (a workflow stage or fixture package below
// the skill, or the skill itself), audits its methods and marks the files
// it runs as used.
func (a *audit) pkg(sub string, top bool) *pkg.Package {
	sub = path.Clean(sub)
	p, err := pkg.Load(filepath.Join(a.root, filepath.FromSlash(sub)), pkg.LoadOptions{RunxVersion: auditRunx})
	if err != nil {
		a.fail("%s does not load: %v", sub, err)
		return nil
	}
	a.used[path.Join(sub, pkg.SkillFile)] = true
	a.used[path.Join(sub, pkg.ProfileFile)] = true
	if b, err := os.ReadFile(filepath.Join(a.root, filepath.FromSlash(sub), pkg.ProfileFile)); err == nil {
		if m := residue.Find(b); m != nil {
			a.fail("%s holds builder residue or a placeholder (%q)", path.Join(sub, pkg.ProfileFile), m)
		}
	}
	for name := range p.Connectors {
		a.used[path.Join(sub, "connectors", name, "connector.yaml")] = true
	}
	if top {
		if strings.TrimSpace(p.Description) == "" {
			a.fail("SKILL.md states no description")
		}
		if len(strings.TrimSpace(p.Manual)) < 200 {
			a.fail("SKILL.md's manual is %d bytes: say what the skill does, its inputs and outputs and how to run it", len(strings.TrimSpace(p.Manual)))
		}
	}
	for _, m := range p.Methods {
		if strings.HasPrefix(sub, "fixtures/") {
			// A fixture package is what a test runs, not the skill's
			// authority: only the files it runs are marked.
			for _, s := range m.Steps {
				a.step(sub, s)
			}
			continue
		}
		where := path.Join(sub, pkg.ProfileFile) + " method " + m.Name
		if strings.TrimSpace(m.Description) == "" {
			a.fail("%s has no description", where)
		}
		if m.Effects == "" {
			a.fail("%s states no effects: state the least it needs (none, ask or allow)", where)
		} else if m.Effects != "none" && a.pure(sub, m) {
			a.fail("%s states effects %s, but nothing in it can change anything: state none", where, m.Effects)
		}
		for _, s := range m.Steps {
			a.step(sub, s)
		}
	}
	return p
}

// step marks what one step runs as used.
func (a *audit) step(sub string, s *pkg.Step) {
	switch {
	case s.Tool != nil && s.Tool.Module != nil:
		a.module(path.Join(sub, s.Tool.Module.Module))
	case s.Script != nil:
		a.module(path.Join(sub, s.Script.Module))
	case strings.HasPrefix(s.Skill, "./"):
		ref, _, _ := strings.Cut(s.Skill, "#")
		a.pkg(path.Join(sub, ref), false)
	}
}

// module marks a module and the modules it imports as used, and holds
// them to no residue.
func (a *audit) module(rel string) {
	if a.used[rel] {
		return
	}
	a.used[rel] = true
	b, err := os.ReadFile(filepath.Join(a.root, filepath.FromSlash(rel)))
	if err != nil {
		a.fail("module %s: %v", rel, err)
		return
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		a.fail("module %s is empty: a placeholder module", rel)
	}
	if m := residue.Find(b); m != nil {
		a.fail("module %s holds builder residue or a placeholder (%q)", rel, m)
	}
	for _, imp := range moduleImport.FindAllSubmatch(b, -1) {
		a.module(path.Join(path.Dir(rel), string(imp[1])))
	}
}

// pure reports whether nothing in the method can change anything: its
// steps only run inline modules (deterministic JavaScript with no calls)
// or local stages whose methods all state effects none.
func (a *audit) pure(sub string, m *pkg.Method) bool {
	for _, s := range m.Steps {
		switch {
		case s.Tool != nil && s.Tool.Module != nil:
		case strings.HasPrefix(s.Skill, "./"):
			ref, _, _ := strings.Cut(s.Skill, "#")
			child, err := pkg.Load(filepath.Join(a.root, filepath.FromSlash(path.Join(sub, ref))), pkg.LoadOptions{RunxVersion: auditRunx})
			if err != nil {
				return false
			}
			for _, cm := range child.Methods {
				if cm.Effects != "none" {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}
