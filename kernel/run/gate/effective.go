package gate

import (
	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/pkg"
)

// Layer is the authority layer a method or a step states.
func Layer(kind authority.LayerKind, name, effects, reach string) authority.Layer {
	l := authority.Layer{Kind: kind, Name: name}
	var err error
	// kernel/pkg admits only known values; one that does not parse narrows
	// to the least rather than leaving the layer unset (which narrows nothing).
	if effects != "" {
		if l.Effects, err = authority.ParseEffects(effects); err != nil {
			l.Effects = authority.EffectsNone
		}
	}
	if reach != "" {
		if l.Reach, err = authority.ParseReach(reach); err != nil {
			l.Reach = authority.ReachInputs
		}
	}
	return l
}

// Effective is the authority one step runs under: the narrowest of what
// its run holds (base: its host's, or for a child what its step held), its
// method's and its own.
func Effective(base authority.Effective, m *pkg.Method, step *pkg.Step) authority.Effective {
	return base.Then(
		Layer(authority.LayerMethod, m.Name, m.Effects, m.Reach),
		Layer(authority.LayerStep, step.ID, step.Effects, step.Reach),
	)
}

// ChildLimits refuses starting n child runs from one step or script of a
// run at runDepth, one level below it, where the max_fanout or
// max_child_depth of the authority the step runs under (Effective) is
// lower.
func ChildLimits(base authority.Effective, m *pkg.Method, step *pkg.Step, runDepth, n int) error {
	limits := Effective(base, m, step).Limits
	if err := limits.CheckChildDepth(runDepth + 1); err != nil {
		return err
	}
	return limits.CheckFanout(n)
}
