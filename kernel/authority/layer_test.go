package authority

import "testing"

func host(e Effects, r Reach) Layer { return Layer{Kind: LayerHost, Effects: e, Reach: r} }
func method(e Effects, r Reach) Layer {
	return Layer{Kind: LayerMethod, Name: "m", Effects: e, Reach: r}
}
func step(e Effects, r Reach) Layer { return Layer{Kind: LayerStep, Name: "s", Effects: e, Reach: r} }
func call(e Effects, r Reach) Layer { return Layer{Kind: LayerCall, Name: "s/1", Effects: e, Reach: r} }

func TestNarrow(t *testing.T) {
	const (
		U  = EffectsUnset
		N  = EffectsNone
		K  = EffectsAsk
		A  = EffectsAllow
		RU = ReachUnset
		W  = ReachWorkspace
		I  = ReachInputs
	)
	tests := []struct {
		name        string
		layers      []Layer
		effects     Effects
		effectsFrom LayerKind
		reach       Reach
		reachFrom   LayerKind
		hostStated  bool
	}{
		{"no layers: no host means allow and inputs", nil, A, LayerDefault, I, LayerDefault, false},
		{"absent host layer is no host", []Layer{(*Authority)(nil).Layer()}, A, LayerDefault, I, LayerDefault, false},
		{"empty host is stated but narrows nothing", []Layer{host(U, RU)}, A, LayerDefault, I, LayerDefault, true},
		{"host narrows", []Layer{host(K, W)}, K, LayerHost, W, LayerHost, true},
		{"host allow and inputs changes nothing, credit stays default", []Layer{host(A, I)}, A, LayerDefault, I, LayerDefault, true},
		{"method narrower than host", []Layer{host(K, I), method(N, W)}, N, LayerMethod, W, LayerMethod, true},
		{"method wider than host narrows nothing", []Layer{host(K, W), method(A, I)}, K, LayerHost, W, LayerHost, true},
		{"step narrower than method", []Layer{host(A, I), method(K, I), step(N, W)}, N, LayerStep, W, LayerStep, true},
		{"step wider than method narrows nothing", []Layer{host(A, I), method(N, W), step(K, I)}, N, LayerMethod, W, LayerMethod, true},
		{"call narrowest", []Layer{host(A, I), method(A, I), step(K, I), call(N, W)}, N, LayerCall, W, LayerCall, true},
		{"tie keeps the outer layer", []Layer{host(K, W), method(K, W), step(K, W)}, K, LayerHost, W, LayerHost, true},
		{"no host, method narrows", []Layer{method(K, RU)}, K, LayerMethod, I, LayerDefault, false},
		{"effects and reach from different layers", []Layer{host(K, I), step(U, W)}, K, LayerHost, W, LayerStep, true},
		{"unset layers narrow nothing", []Layer{host(N, W), method(U, RU), step(U, RU), call(U, RU)}, N, LayerHost, W, LayerHost, true},
		{"order does not change values", []Layer{call(N, RU), host(K, W)}, N, LayerCall, W, LayerHost, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Narrow(tt.layers...)
			if got.Effects != tt.effects || got.EffectsFrom.Kind != tt.effectsFrom {
				t.Errorf("effects %v from %v, want %v from %v", got.Effects, got.EffectsFrom.Kind, tt.effects, tt.effectsFrom)
			}
			if got.Reach != tt.reach || got.ReachFrom.Kind != tt.reachFrom {
				t.Errorf("reach %v from %v, want %v from %v", got.Reach, got.ReachFrom.Kind, tt.reach, tt.reachFrom)
			}
			if got.HostStated != tt.hostStated {
				t.Errorf("HostStated %v, want %v", got.HostStated, tt.hostStated)
			}
		})
	}
}

// TestNarrowEveryCombination checks every host × method × step × call
// effects and reach combination against the definition: the result is the
// minimum of the stated values, allow and inputs when none is stated.
func TestNarrowEveryCombination(t *testing.T) {
	for _, h := range allEffects {
		for _, m := range allEffects {
			for _, s := range allEffects {
				for _, c := range allEffects {
					want := EffectsAllow
					for _, e := range []Effects{h, m, s, c} {
						if e != EffectsUnset && e < want {
							want = e
						}
					}
					got := Narrow(host(h, 0), method(m, 0), step(s, 0), call(c, 0))
					if got.Effects != want {
						t.Errorf("host %v method %v step %v call %v: %v, want %v", h, m, s, c, got.Effects, want)
					}
				}
			}
		}
	}
	for _, h := range allReach {
		for _, m := range allReach {
			for _, s := range allReach {
				for _, c := range allReach {
					want := ReachInputs
					for _, r := range []Reach{h, m, s, c} {
						if r != ReachUnset && r < want {
							want = r
						}
					}
					if got := Narrow(host(0, h), method(0, m), step(0, s), call(0, c)); got.Reach != want {
						t.Errorf("host %v method %v step %v call %v: %v, want %v", h, m, s, c, got.Reach, want)
					}
				}
			}
		}
	}
}

func TestTurnCallsRunUnderTheirAgentStep(t *testing.T) {
	agentStep := Narrow(host(EffectsAllow, ReachInputs), step(EffectsAsk, ReachWorkspace))
	// The call asks for more than its step holds and gets only the step's.
	wider := agentStep.Then(call(EffectsAllow, ReachInputs))
	if wider.Effects != EffectsAsk || wider.Reach != ReachWorkspace || wider.EffectsFrom.Kind != LayerStep {
		t.Errorf("a call widened its agent step: %+v", wider)
	}
	narrower := agentStep.Then(call(EffectsNone, 0))
	if narrower.Effects != EffectsNone || narrower.EffectsFrom.Kind != LayerCall {
		t.Errorf("a call could not narrow its agent step: %+v", narrower)
	}
}

func TestForChild(t *testing.T) {
	parent := Narrow(host(EffectsAsk, ReachInputs), step(0, ReachWorkspace))
	parent.Limits.MaxFanout = LimitOf(3)
	child := ForChild(parent)
	if child.Effects != parent.Effects || child.Reach != parent.Reach || child.Limits != parent.Limits || child.HostStated != parent.HostStated {
		t.Fatalf("a child must hold exactly what its step holds: %+v vs %+v", child, parent)
	}
	if !child.EffectsFrom.Inherited || !child.ReachFrom.Inherited {
		t.Errorf("a child's authority must say it was inherited: %+v", child)
	}
	if got := child.EffectsFrom.String(); got != "host authority in the parent run" {
		t.Errorf("EffectsFrom = %q", got)
	}
	// Nothing in the child widens it; its own layers still narrow it.
	widened := child.Then(Layer{Kind: LayerHost, Effects: EffectsAllow, Reach: ReachInputs, Limits: Limits{MaxFanout: LimitOf(10)}},
		method(EffectsAllow, ReachInputs))
	if widened.Effects != EffectsAsk || widened.Reach != ReachWorkspace || widened.Limits.MaxFanout != LimitOf(3) {
		t.Errorf("a child widened its parent step's authority: %+v", widened)
	}
	narrowed := child.Then(step(EffectsNone, 0))
	if narrowed.Effects != EffectsNone || narrowed.EffectsFrom != (Source{Kind: LayerStep, Name: "s"}) {
		t.Errorf("a child's step could not narrow: %+v", narrowed)
	}
	unstated := ForChild(Narrow())
	if unstated.HostStated || unstated.Effects != EffectsAllow {
		t.Errorf("a child of a run with no host has no host either: %+v", unstated)
	}
}

func TestNarrowLimits(t *testing.T) {
	a := mustParse(t, `{"max_concurrency": 8, "max_fanout": 4, "max_spend_micro_usd": 100}`)
	got := Narrow(a.Layer(), Layer{Kind: LayerStep, Limits: Limits{MaxConcurrency: LimitOf(2), MaxFanout: LimitOf(9), MaxChildDepth: LimitOf(1)}})
	want := Limits{MaxConcurrency: LimitOf(2), MaxFanout: LimitOf(4), MaxChildDepth: LimitOf(1), MaxSpendMicroUSD: LimitOf(100)}
	if got.Limits != want {
		t.Errorf("limits %+v, want %+v", got.Limits, want)
	}
}

func TestSourceString(t *testing.T) {
	tests := []struct {
		s    Source
		want string
	}{
		{Source{}, "no host stated it"},
		{Source{Kind: LayerDefault}, "no host stated it"},
		{Source{Kind: LayerHost}, "host authority"},
		{Source{Kind: LayerHost, Name: "ci"}, `host authority "ci"`},
		{Source{Kind: LayerMethod, Name: "greet"}, `method "greet"`},
		{Source{Kind: LayerStep, Name: "write"}, `step "write"`},
		{Source{Kind: LayerCall, Name: "turn/2"}, `call "turn/2"`},
		{Source{Kind: LayerCall, Name: "turn/2", Inherited: true}, `call "turn/2" in the parent run`},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}
