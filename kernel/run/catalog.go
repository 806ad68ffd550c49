package run

import (
	"io/fs"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/installed"
)

// Skills lists the workspace's skills, the core skills this runx carries
// and the skills installed in the project, in that order, each sorted by
// ref. It reads the project's added skills without opening its state, and
// verifies each installed one as a run binding it would.
func (l *Locator) Skills() ([]installed.ListedSkill, error) {
	out := []installed.ListedSkill{}
	ws, err := l.resolver.WorkspaceSkills()
	if err != nil {
		return nil, err
	}
	out = append(out, ws...)
	out = append(out, l.bundledSkills()...)
	inst, err := l.resolver.Installed()
	if err != nil {
		return nil, err
	}
	return append(out, inst...), nil
}

// bundledSkills are the core skills, each read where a run reads it.
func (l *Locator) bundledSkills() []installed.ListedSkill {
	core := l.resolver.Core
	if core == nil {
		return nil
	}
	entries, err := fs.ReadDir(core, ".")
	if err != nil {
		return nil
	}
	var out []installed.ListedSkill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(core, e.Name()+"/SKILL.md"); err != nil {
			continue
		}
		s := installed.ListedSkill{Ref: "runx/" + e.Name(), Source: installed.SkillSourceBundled, TrustTier: installed.TrustFirstParty}
		dir, err := l.resolver.core(e.Name())
		if err != nil {
			out = append(out, installed.Describe(s, nil, err))
			continue
		}
		s.Dir = dir
		p, err := pkg.Load(dir, l.LoadOptions())
		out = append(out, installed.Describe(s, p, err))
	}
	return out
}
