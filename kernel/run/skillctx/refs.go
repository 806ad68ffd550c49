package skillctx

import "github.com/runxhq/runx/kernel/pkg"

// ChildRefs are the skill refs p's methods name, in declared order, each
// once: skill steps, the skills a turn's or a script's calls list, and
// the skills a turn reads as context. A run binds and fetches each before
// it starts.
func ChildRefs(p *pkg.Package) []string {
	seen := map[string]bool{}
	var refs []string
	add := func(ref string) {
		if ref != "" && !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
	}
	for _, m := range p.Methods {
		for _, s := range m.Steps {
			add(s.Skill)
			for _, c := range []*pkg.Calls{AgentCalls(s), ScriptCalls(s)} {
				if c != nil {
					for _, ref := range c.Skills {
						add(ref)
					}
				}
			}
			if s.Agent != nil {
				for _, ref := range s.Agent.ContextSkills {
					add(ref)
				}
			}
		}
	}
	return refs
}

// StepRef is a skill ref a method runs, with the step naming it.
type StepRef struct{ Step, Ref string }

// MethodRefs are the skill refs m runs: its skill steps', and the skills
// each turn's and script's calls list. Context skills are not run, so
// they are not among them.
func MethodRefs(m *pkg.Method) []StepRef {
	var out []StepRef
	for _, s := range m.Steps {
		if s.Kind == pkg.KindSkill {
			out = append(out, StepRef{s.ID, s.Skill})
		}
		for _, c := range []*pkg.Calls{AgentCalls(s), ScriptCalls(s)} {
			if c != nil {
				for _, ref := range c.Skills {
					out = append(out, StepRef{s.ID, ref})
				}
			}
		}
	}
	return out
}

// AgentCalls is what an agent step's turn may call, nil for another step.
func AgentCalls(s *pkg.Step) *pkg.Calls {
	if s.Agent == nil {
		return nil
	}
	return s.Agent.Calls
}

// ScriptCalls is what a script step may call, nil for another step.
func ScriptCalls(s *pkg.Step) *pkg.Calls {
	if s.Script == nil {
		return nil
	}
	return s.Script.Calls
}
