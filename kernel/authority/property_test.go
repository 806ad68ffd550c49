package authority

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"testing/quick"
)

// The properties of the algebra, checked over seeded random inputs so a
// failure reproduces exactly. propertyRuns is large enough to reach every
// small combination many times and still runs in well under a second.
const propertyRuns = 20000

func newRand(tb testing.TB) *rand.Rand {
	tb.Helper()
	// A fixed seed: a failure names its inputs and happens again on rerun.
	return rand.New(rand.NewPCG(0x5EED, 0xA11CE))
}

var layerKinds = []LayerKind{LayerHost, LayerMethod, LayerStep, LayerCall}

func randLimit(r *rand.Rand) Limit {
	if r.IntN(3) == 0 {
		return Limit{}
	}
	return LimitOf(r.Int64N(20))
}

func randLayer(r *rand.Rand) Layer {
	if r.IntN(10) == 0 {
		return Layer{} // absent, as no host is
	}
	return Layer{
		Kind:    layerKinds[r.IntN(len(layerKinds))],
		Name:    string(rune('a' + r.IntN(3))),
		Effects: allEffects[r.IntN(len(allEffects))],
		Reach:   allReach[r.IntN(len(allReach))],
		Limits: Limits{
			MaxConcurrency:   randLimit(r),
			MaxFanout:        randLimit(r),
			MaxChildDepth:    randLimit(r),
			MaxSpendMicroUSD: randLimit(r),
		},
	}
}

func randLayers(r *rand.Rand) []Layer {
	ls := make([]Layer, r.IntN(6))
	for i := range ls {
		ls[i] = randLayer(r)
	}
	return ls
}

// values is what narrowing decides, without the credit for it.
type values struct {
	Effects    Effects
	Reach      Reach
	Limits     Limits
	HostStated bool
}

func valuesOf(e Effective) values { return values{e.Effects, e.Reach, e.Limits, e.HostStated} }

func limitAtMost(got, bound Limit) bool {
	b, ok := bound.Value()
	if !ok {
		return true
	}
	g, ok := got.Value()
	return ok && g <= b
}

// TestPropertyNarrowingNeverWidens: the result is at most every layer's
// stated value, and exactly the narrowest of them (or the default).
func TestPropertyNarrowingNeverWidens(t *testing.T) {
	r := newRand(t)
	for range propertyRuns {
		layers := randLayers(r)
		got := Narrow(layers...)
		wantEffects, wantReach := EffectsAllow, ReachInputs
		for _, l := range layers {
			if l.Kind == "" {
				continue
			}
			if l.Effects != EffectsUnset && got.Effects > l.Effects {
				t.Fatalf("effects widened past %v: %+v from %+v", l.Effects, got, layers)
			}
			if l.Reach != ReachUnset && got.Reach > l.Reach {
				t.Fatalf("reach widened past %v: %+v from %+v", l.Reach, got, layers)
			}
			for _, pair := range [][2]Limit{
				{got.Limits.MaxConcurrency, l.Limits.MaxConcurrency},
				{got.Limits.MaxFanout, l.Limits.MaxFanout},
				{got.Limits.MaxChildDepth, l.Limits.MaxChildDepth},
				{got.Limits.MaxSpendMicroUSD, l.Limits.MaxSpendMicroUSD},
			} {
				if !limitAtMost(pair[0], pair[1]) {
					t.Fatalf("a limit widened: %+v from %+v", got.Limits, layers)
				}
			}
			wantEffects, wantReach = wantEffects.Meet(l.Effects), wantReach.Meet(l.Reach)
		}
		if got.Effects != wantEffects || got.Reach != wantReach {
			t.Fatalf("got %v/%v, want the narrowest %v/%v from %+v", got.Effects, got.Reach, wantEffects, wantReach, layers)
		}
		// Whatever decided a value, it is a layer that stated that value,
		// or the default when none narrowed it.
		if got.EffectsFrom.Kind == LayerDefault && got.Effects != EffectsAllow {
			t.Fatalf("default credited for %v", got.Effects)
		}
		// Narrowing further never widens what is already in force.
		more := got.Then(randLayers(r)...)
		if more.Effects > got.Effects || more.Reach > got.Reach || !limitAtMost(more.Limits.MaxFanout, got.Limits.MaxFanout) {
			t.Fatalf("Then widened %+v to %+v", got, more)
		}
	}
}

// TestPropertyNarrowingCommutes: the order of layers changes only which
// layer gets the credit, never the values.
func TestPropertyNarrowingCommutes(t *testing.T) {
	r := newRand(t)
	for range propertyRuns {
		layers := randLayers(r)
		shuffled := append([]Layer(nil), layers...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if a, b := valuesOf(Narrow(layers...)), valuesOf(Narrow(shuffled...)); a != b {
			t.Fatalf("order changed the values: %+v vs %+v for %+v", a, b, layers)
		}
	}
}

// TestPropertyNarrowingAssociates: narrowing in stages, at any split, is
// narrowing at once, credit included; and a child run started from a step
// holds the same values the step's layers and the child's would together.
func TestPropertyNarrowingAssociates(t *testing.T) {
	r := newRand(t)
	for range propertyRuns {
		x, y, z := randLayers(r), randLayers(r), randLayers(r)
		all := append(append(append([]Layer(nil), x...), y...), z...)
		flat := Narrow(all...)
		if left := Narrow(x...).Then(y...).Then(z...); left != flat {
			t.Fatalf("(x y) z = %+v, x y z = %+v", left, flat)
		}
		if right := Narrow(x...).Then(append(append([]Layer(nil), y...), z...)...); right != flat {
			t.Fatalf("x (y z) = %+v, x y z = %+v", right, flat)
		}
		if child := ForChild(Narrow(x...)).Then(y...); valuesOf(child) != valuesOf(Narrow(append(append([]Layer(nil), x...), y...)...)) {
			t.Fatalf("a child's authority differs from its parent step's layers and its own")
		}
	}
}

// TestPropertyNarrowingIdempotent: stating a layer twice, or narrowing a
// result by the layers that made it, changes nothing.
func TestPropertyNarrowingIdempotent(t *testing.T) {
	r := newRand(t)
	for range propertyRuns {
		layers := randLayers(r)
		once := Narrow(layers...)
		if twice := Narrow(append(append([]Layer(nil), layers...), layers...)...); twice != once {
			t.Fatalf("L L = %+v, L = %+v", twice, once)
		}
		if again := once.Then(layers...); again != once {
			t.Fatalf("narrowing a result by its own layers changed it: %+v vs %+v", again, once)
		}
	}
}

// TestMeetLaws checks the lattice laws over every effects and reach value.
func TestMeetLaws(t *testing.T) {
	for _, a := range allEffects {
		if a.Meet(a) != a || a.Meet(EffectsUnset) != a || EffectsUnset.Meet(a) != a {
			t.Errorf("effects %v: idempotence or identity fails", a)
		}
		for _, b := range allEffects {
			if a.Meet(b) != b.Meet(a) {
				t.Errorf("effects %v, %v: not commutative", a, b)
			}
			for _, c := range allEffects {
				if a.Meet(b).Meet(c) != a.Meet(b.Meet(c)) {
					t.Errorf("effects %v, %v, %v: not associative", a, b, c)
				}
			}
		}
	}
	for _, a := range allReach {
		if a.Meet(a) != a || a.Meet(ReachUnset) != a {
			t.Errorf("reach %v: idempotence or identity fails", a)
		}
		for _, b := range allReach {
			if a.Meet(b) != b.Meet(a) {
				t.Errorf("reach %v, %v: not commutative", a, b)
			}
			for _, c := range allReach {
				if a.Meet(b).Meet(c) != a.Meet(b.Meet(c)) {
					t.Errorf("reach %v, %v, %v: not associative", a, b, c)
				}
			}
		}
	}
}

// TestLimitMeetLaws checks the same laws for limits with testing/quick.
func TestLimitMeetLaws(t *testing.T) {
	mk := func(n int64, set bool) Limit {
		if !set {
			return Limit{}
		}
		if n < 0 {
			n = -n
		}
		return LimitOf(n)
	}
	law := func(a, b, c int64, sa, sb, sc bool) bool {
		x, y, z := mk(a, sa), mk(b, sb), mk(c, sc)
		m := x.Meet(y)
		return m == y.Meet(x) &&
			x.Meet(y).Meet(z) == x.Meet(y.Meet(z)) &&
			x.Meet(x) == x && x.Meet(Limit{}) == x &&
			limitAtMost(m, x) && limitAtMost(m, y)
	}
	if err := quick.Check(law, &quick.Config{MaxCount: 5000, Rand: nil}); err != nil {
		t.Error(err)
	}
}

var randChanges = []Change{
	{Kind: ChangeNone},
	{Kind: ChangeEdit, Paths: []string{"src/a.go"}},
	{Kind: ChangeEdit, Paths: []string{"src/a.go", "docs/b.md"}},
	{Kind: ChangeEdit},
	{Kind: ChangeCommand, Argv: []string{"go", "test", "./..."}},
	{Kind: ChangeCommand},
	{Kind: ChangeProcessStart, Argv: []string{"npm", "run", "dev"}},
	{Kind: ChangeOperationWrite, Operation: "forge/issue.create"},
	{Kind: ChangeOperationWrite, Operation: "forge/issue.create", OwnApproval: true},
	{Kind: ChangeStoreWrite},
	{Kind: ChangeStoreWrite, OwnStore: true},
	{Kind: ChangeStoreWrite, OwnStore: true, OwnApproval: true},
	{Kind: ChangeStoreWrite, FromTurn: true},
}

var randStanding = []StandingApproval{saLocal, saEditsSrc, saEditsAll, saEditsDocs, saCmdGoTest, saCmdGoBuild, saOpExact, saOpConn, saOpOther}

func strictness(d Decision) int {
	switch d.Verdict {
	case VerdictAllow:
		return 0
	case VerdictGate:
		return 1
	}
	return 2
}

// TestPropertyFloorMonotone: narrower effects never make the floor more
// permissive, and more standing approvals never make it stricter.
func TestPropertyFloorMonotone(t *testing.T) {
	r := newRand(t)
	for range propertyRuns {
		layers := randLayers(r)
		change := randChanges[r.IntN(len(randChanges))]
		var standing []StandingApproval
		for range r.IntN(4) {
			standing = append(standing, randStanding[r.IntN(len(randStanding))])
		}
		wide := Narrow(layers...)
		narrow := wide.Then(randLayer(r))
		dw, dn := Floor(wide, change, standing), Floor(narrow, change, standing)
		if strictness(dn) < strictness(dw) {
			t.Fatalf("narrowing %v to %v loosened %+v: %+v -> %+v", wide.Effects, narrow.Effects, change, dw, dn)
		}
		more := append(append([]StandingApproval(nil), standing...), randStanding[r.IntN(len(randStanding))])
		if dm := Floor(wide, change, more); strictness(dm) > strictness(dw) {
			t.Fatalf("adding a standing approval tightened %+v: %+v -> %+v", change, dw, dm)
		}
		// Under none nothing but no change gets through; under allow only
		// a turn's store write is stopped.
		switch wide.Effects {
		case EffectsNone:
			if change.Kind != ChangeNone && dw.Verdict != VerdictRefuse {
				t.Fatalf("effects none let %+v through: %+v", change, dw)
			}
		case EffectsAllow:
			if dw.Verdict != VerdictAllow && !change.FromTurn {
				t.Fatalf("effects allow held %+v: %+v", change, dw)
			}
		}
	}
}

// TestPropertyDocumentRoundTrip: any authority runx writes parses back to
// itself with the same digest.
func TestPropertyDocumentRoundTrip(t *testing.T) {
	r := newRand(t)
	patterns := []string{"acme/*", "project:*", "runx/data-store", "*/shared", "project:mine"}
	for range 2000 {
		l := randLayer(r)
		a := &Authority{Effects: l.Effects, Reach: l.Reach, Limits: l.Limits}
		if n, ok := a.MaxConcurrency.Value(); ok && n == 0 {
			a.MaxConcurrency = LimitOf(1)
		}
		if r.IntN(2) == 0 {
			a.Packages = PackagesOf(patterns[:r.IntN(len(patterns)+1)]...)
		}
		for range r.IntN(4) {
			a.StandingApprovals = append(a.StandingApprovals, randStanding[r.IntN(len(randStanding))])
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("Parse(%s): %v", b, err)
		}
		if !reflect.DeepEqual(a, back) {
			t.Fatalf("round trip of %s changed it:\n%#v\n%#v", b, a, back)
		}
		d1, err1 := a.Digest()
		d2, err2 := back.Digest()
		if err1 != nil || err2 != nil || d1 != d2 {
			t.Fatalf("digests differ: %s %s %v %v", d1, d2, err1, err2)
		}
	}
}
