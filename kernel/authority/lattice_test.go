package authority

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestParseEffects(t *testing.T) {
	tests := []struct {
		in   string
		want Effects
		code errcode.Code
	}{
		{"", EffectsUnset, ""},
		{"none", EffectsNone, ""},
		{"ask", EffectsAsk, ""},
		{"allow", EffectsAllow, ""},
		{"Allow", 0, errcode.AuthorityInvalidValue},
		{"deny", 0, errcode.AuthorityInvalidValue},
		{" ask", 0, errcode.AuthorityInvalidValue},
	}
	for _, tt := range tests {
		got, err := ParseEffects(tt.in)
		wantCode(t, err, tt.code)
		if tt.code == "" && got != tt.want {
			t.Errorf("ParseEffects(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseReach(t *testing.T) {
	tests := []struct {
		in   string
		want Reach
		code errcode.Code
	}{
		{"", ReachUnset, ""},
		{"workspace", ReachWorkspace, ""},
		{"inputs", ReachInputs, ""},
		{"everywhere", 0, errcode.AuthorityInvalidValue},
		{"Inputs", 0, errcode.AuthorityInvalidValue},
	}
	for _, tt := range tests {
		got, err := ParseReach(tt.in)
		wantCode(t, err, tt.code)
		if tt.code == "" && got != tt.want {
			t.Errorf("ParseReach(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestEffectsMeet is the whole table: none < ask < allow, unset the identity.
func TestEffectsMeet(t *testing.T) {
	U, N, K, A := EffectsUnset, EffectsNone, EffectsAsk, EffectsAllow
	want := map[[2]Effects]Effects{
		{U, U}: U, {U, N}: N, {U, K}: K, {U, A}: A,
		{N, U}: N, {N, N}: N, {N, K}: N, {N, A}: N,
		{K, U}: K, {K, N}: N, {K, K}: K, {K, A}: K,
		{A, U}: A, {A, N}: N, {A, K}: K, {A, A}: A,
	}
	for pair, w := range want {
		if got := pair[0].Meet(pair[1]); got != w {
			t.Errorf("%v.Meet(%v) = %v, want %v", pair[0], pair[1], got, w)
		}
	}
}

func TestReachMeet(t *testing.T) {
	U, W, I := ReachUnset, ReachWorkspace, ReachInputs
	want := map[[2]Reach]Reach{
		{U, U}: U, {U, W}: W, {U, I}: I,
		{W, U}: W, {W, W}: W, {W, I}: W,
		{I, U}: I, {I, W}: W, {I, I}: I,
	}
	for pair, w := range want {
		if got := pair[0].Meet(pair[1]); got != w {
			t.Errorf("%v.Meet(%v) = %v, want %v", pair[0], pair[1], got, w)
		}
	}
}

func TestLatticeSpelling(t *testing.T) {
	for _, e := range allEffects[1:] {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if back, err := ParseEffects(s); err != nil || back != e {
			t.Errorf("effects %v does not round-trip: %s", e, b)
		}
	}
	for _, r := range allReach[1:] {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if back, err := ParseReach(s); err != nil || back != r {
			t.Errorf("reach %v does not round-trip: %s", r, b)
		}
	}
	if _, err := EffectsUnset.MarshalText(); err == nil {
		t.Error("an unset effects value has no spelling, so marshalling it must fail")
	}
	if _, err := ReachUnset.MarshalText(); err == nil {
		t.Error("an unset reach value has no spelling, so marshalling it must fail")
	}
	if Effects(9).String() != "Effects(9)" || Reach(9).String() != "Reach(9)" {
		t.Error("out-of-range values must print as such")
	}
	if !EffectsUnset.IsZero() || EffectsNone.IsZero() || !ReachUnset.IsZero() || ReachWorkspace.IsZero() {
		t.Error("IsZero must mean unstated")
	}
}
