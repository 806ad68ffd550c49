package authority

import "strconv"

// LayerKind names where a layer of authority comes from.
type LayerKind string

const (
	// LayerDefault is no layer at all: what a run takes when nothing states
	// effects or reach (effects allow, reach inputs). It records only that
	// no host set them, never that a person ran the command.
	LayerDefault LayerKind = "default"
	LayerHost    LayerKind = "host"
	LayerMethod  LayerKind = "method"
	LayerStep    LayerKind = "step"
	LayerCall    LayerKind = "call"
)

// Layer is one statement of authority: the host's document, a method's or a
// step's effects and reach in run.yaml, or one call's. A field left unset
// states nothing. The zero Layer (no Kind) is absent and Narrow skips it,
// which is how "no host" is passed: (*Authority)(nil).Layer().
type Layer struct {
	Kind    LayerKind
	Name    string // the method, step or call address; optional for a host
	Effects Effects
	Reach   Reach
	Limits  Limits
}

// Source says which layer decided a value, so a refusal can name it.
type Source struct {
	Kind LayerKind `json:"kind"`
	Name string    `json:"name,omitempty"`
	// Inherited is set when the value came down from the step that started
	// this child run, rather than from one of the child's own layers.
	Inherited bool `json:"inherited,omitempty"`
}

// String is the source as a rule names it: `host authority`,
// `step "write"`, `call "turn/2" in the parent run`.
func (s Source) String() string {
	var out string
	switch s.Kind {
	case LayerDefault, "":
		out = "no host stated it"
	case LayerHost:
		out = "host authority"
		if s.Name != "" {
			out += " " + strconv.Quote(s.Name)
		}
	default:
		out = string(s.Kind)
		if s.Name != "" {
			out += " " + strconv.Quote(s.Name)
		}
	}
	if s.Inherited {
		out += " in the parent run"
	}
	return out
}

// Effective is the authority that applies to one step or call: the narrowest
// of its layers, with the layer that decided each value.
type Effective struct {
	Effects     Effects `json:"effects"`
	Reach       Reach   `json:"reach"`
	Limits      Limits  `json:"limits"`
	EffectsFrom Source  `json:"effects_from"`
	ReachFrom   Source  `json:"reach_from"`
	// HostStated is false when no host stated an authority, so the run took
	// effects allow and reach inputs only because nobody narrowed them.
	HostStated bool `json:"host_stated"`
}

// Unstated is what applies before any layer speaks: effects allow and reach
// inputs, decided by no one.
func Unstated() Effective {
	def := Source{Kind: LayerDefault}
	return Effective{Effects: EffectsAllow, Reach: ReachInputs, EffectsFrom: def, ReachFrom: def}
}

// Narrow is the authority that applies under the given layers, normally
// host, method, step and call in that order. Each value is the narrowest any
// layer states; a value wider than one already in force narrows nothing. The
// values do not depend on the order of the layers; only which layer is
// named does, and on a tie the earlier (outer) layer keeps the credit,
// because the inner one changed nothing.
func Narrow(layers ...Layer) Effective {
	return Unstated().Then(layers...)
}

// Then narrows e by further layers: a turn's calls run under their agent
// step's authority, so a call is agentStep.Then(callLayer).
func (e Effective) Then(layers ...Layer) Effective {
	for i := range layers {
		l := &layers[i]
		if l.Kind == "" {
			continue
		}
		if l.Kind == LayerHost {
			e.HostStated = true
		}
		if m := e.Effects.Meet(l.Effects); m != e.Effects {
			e.Effects, e.EffectsFrom = m, Source{Kind: l.Kind, Name: l.Name}
		}
		if m := e.Reach.Meet(l.Reach); m != e.Reach {
			e.Reach, e.ReachFrom = m, Source{Kind: l.Kind, Name: l.Name}
		}
		e.Limits = e.Limits.Meet(l.Limits)
	}
	return e
}

// ForChild is the authority a child run starts with: exactly what the step
// that started it holds, marked inherited so the child's refusals say where
// it came from. The child's own method and step layers then narrow it with
// Then; nothing in the child can widen it.
func ForChild(parentStep Effective) Effective {
	parentStep.EffectsFrom.Inherited = true
	parentStep.ReachFrom.Inherited = true
	return parentStep
}
