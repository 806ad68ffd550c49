package authority

import (
	"slices"
	"strconv"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// PlannedStep is what a run's plan knows, before any step runs, about one
// step: the authority that applies to it and the changes certain beneath
// it: a fixed step that changes something, a script's own listed tools and
// operations, and the same in the closure of each method a step lists. An
// agent's calls and loads are its own choices, so they are not listed here;
// the floor decides each as it is made.
type PlannedStep struct {
	// Address names the step as a refusal shows it: its id, or a path
	// into a listed method's closure such as "publish>child#main/write".
	Address   string
	Authority Effective
	Changes   []Change
}

// CertainChanges lists the steps certain to change something, each with
// only the changes that are changes, in the order given.
func CertainChanges(steps []PlannedStep) []PlannedStep {
	var out []PlannedStep
	for _, s := range steps {
		var changes []Change
		for _, c := range s.Changes {
			if c.Kind != ChangeNone { // a missing kind counts: fail closed
				changes = append(changes, c)
			}
		}
		if changes != nil {
			s.Changes = changes
			out = append(out, s)
		}
	}
	return out
}

// RefuseCertain refuses a run as it starts when a step under effects none
// is certain to change something, naming every such step and what it would
// change, so the run is refused whole and runs no step rather than failing
// halfway. It returns nil when no step is refused.
func RefuseCertain(steps []PlannedStep) error {
	var names, rules []string
	for _, s := range CertainChanges(steps) {
		if s.Authority.Effects != EffectsNone && s.Authority.Effects != EffectsUnset {
			continue
		}
		what := make([]string, len(s.Changes))
		for i, c := range s.Changes {
			what[i] = c.describe()
		}
		names = append(names, strconv.Quote(s.Address)+" ("+strings.Join(what, "; ")+")")
		rule := "effects none (" + s.Authority.EffectsFrom.String() + ")"
		if s.Authority.Effects == EffectsUnset {
			rule = "effects not decided, so none"
		}
		if !slices.Contains(rules, rule) {
			rules = append(rules, rule)
		}
	}
	if names == nil {
		return nil
	}
	return refusal(errcode.EffectsNoneRefused, strings.Join(rules, "; "),
		"the run is refused before any step runs: steps certain to change something under effects none: "+strings.Join(names, ", "))
}
