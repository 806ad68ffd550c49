package authority

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestConcurrencyFor(t *testing.T) {
	tests := []struct {
		step, authority, host, want int
	}{
		{0, 0, 16, 16},   // nothing stated: the host's ceiling
		{4, 0, 16, 4},    // the step narrows
		{0, 8, 16, 8},    // the authority narrows
		{4, 8, 16, 4},    // least of the three
		{8, 4, 16, 4},    // least of the three
		{32, 64, 16, 16}, // nothing widens the host's ceiling
		{0, 32, 16, 16},
		{1, 1, 1, 1},
		{-3, -1, 16, 16}, // non-positive states nothing
		{5, 0, 0, 1},     // a broken host ceiling still runs one at a time
		{0, 0, -5, 1},
	}
	for _, tt := range tests {
		if got := ConcurrencyFor(tt.step, tt.authority, tt.host); got != tt.want {
			t.Errorf("ConcurrencyFor(%d, %d, %d) = %d, want %d", tt.step, tt.authority, tt.host, got, tt.want)
		}
	}
}

// TestConcurrencyNestingCannotMultiply: a step under a step under the
// authority never runs more at once than the least of them.
func TestConcurrencyNestingCannotMultiply(t *testing.T) {
	for step := 0; step <= 20; step++ {
		for auth := 0; auth <= 20; auth++ {
			for host := 1; host <= 20; host++ {
				outer := ConcurrencyFor(step, auth, host)
				inner := ConcurrencyFor(step+3, auth, outer)
				if inner > outer || outer > host || (auth > 0 && outer > auth) || (step > 0 && outer > step) || outer < 1 {
					t.Fatalf("step %d auth %d host %d: outer %d inner %d", step, auth, host, outer, inner)
				}
			}
		}
	}
}

func TestParseHostCeiling(t *testing.T) {
	tests := []struct {
		in   string
		def  int
		want int
		code errcode.Code
	}{
		{"", 16, 16, ""},
		{"1", 16, 1, ""},
		{"64", 16, 64, ""},
		{"30002", 30002, 30002, ""},
		{"0", 16, 0, errcode.HostCeilingInvalid},
		{"-4", 16, 0, errcode.HostCeilingInvalid},
		{"+4", 16, 0, errcode.HostCeilingInvalid},
		{" 4", 16, 0, errcode.HostCeilingInvalid},
		{"4 ", 16, 0, errcode.HostCeilingInvalid},
		{"4.0", 16, 0, errcode.HostCeilingInvalid},
		{"1e3", 16, 0, errcode.HostCeilingInvalid},
		{"0x10", 16, 0, errcode.HostCeilingInvalid},
		{"four", 16, 0, errcode.HostCeilingInvalid},
		{"99999999999999999999999", 16, 0, errcode.HostCeilingInvalid},
	}
	for _, tt := range tests {
		got, err := ParseHostCeiling(tt.in, tt.def)
		wantCode(t, err, tt.code)
		if got != tt.want {
			t.Errorf("ParseHostCeiling(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	_, err := ParseHostCeiling(strings.Repeat("9x", 100), 1)
	if e := wantCode(t, err, errcode.HostCeilingInvalid); len(e.Message) > 120 {
		t.Errorf("a long value must be shortened in the message: %q", e.Message)
	}
}

func TestLimit(t *testing.T) {
	var unset Limit
	if _, ok := unset.Value(); ok || !unset.IsZero() || unset.Int() != 0 || !unset.Allows(math.MaxInt64) {
		t.Error("an unstated limit bounds nothing")
	}
	if LimitOf(7).Int() != 7 {
		t.Error("Int is the stated bound")
	}
	zero := LimitOf(0)
	if n, ok := zero.Value(); !ok || n != 0 || zero.IsZero() || zero.Allows(1) || !zero.Allows(0) {
		t.Error("a stated 0 is a real bound")
	}
	if LimitOf(3).Meet(LimitOf(5)) != LimitOf(3) || LimitOf(5).Meet(LimitOf(3)) != LimitOf(3) ||
		unset.Meet(LimitOf(5)) != LimitOf(5) || LimitOf(5).Meet(unset) != LimitOf(5) || unset.Meet(unset) != unset {
		t.Error("Meet is the tighter bound with unset as identity")
	}
	if _, err := json.Marshal(struct{ L Limit }{}); err == nil {
		t.Error("an unstated limit without omitzero must not marshal silently")
	}
	b, err := json.Marshal(Limits{MaxFanout: LimitOf(0), MaxChildDepth: LimitOf(2)})
	if err != nil || string(b) != `{"max_fanout":0,"max_child_depth":2}` {
		t.Errorf("Limits marshal as %s, %v", b, err)
	}
}

func TestLimitChecks(t *testing.T) {
	l := Limits{MaxFanout: LimitOf(3), MaxChildDepth: LimitOf(2), MaxSpendMicroUSD: LimitOf(1000)}
	wantCode(t, l.CheckFanout(3), "")
	e := wantCode(t, l.CheckFanout(4), errcode.FanoutLimitExceeded)
	if e.Rule != "max_fanout 3" {
		t.Errorf("rule %q", e.Rule)
	}
	wantCode(t, l.CheckChildDepth(2), "")
	wantCode(t, l.CheckChildDepth(3), errcode.ChildDepthLimitExceeded)
	wantCode(t, Limits{MaxFanout: LimitOf(0)}.CheckFanout(1), errcode.FanoutLimitExceeded)
	wantCode(t, Limits{}.CheckFanout(1_000_000), "")
	wantCode(t, Limits{}.CheckChildDepth(1_000), "")

	spend := []struct {
		limits           Limits
		reserved, amount int64
		code             errcode.Code
	}{
		{l, 0, 1000, ""},
		{l, 400, 600, ""},
		{l, 400, 601, errcode.CostLimitExceeded},
		{l, 1001, 0, errcode.CostLimitExceeded},
		{l, 0, math.MaxInt64, errcode.CostLimitExceeded},
		{l, math.MaxInt64, math.MaxInt64, errcode.CostLimitExceeded},
		{l, -1, 1, errcode.SpendAmountInvalid},
		{l, 0, -1, errcode.SpendAmountInvalid},
		{Limits{MaxSpendMicroUSD: LimitOf(0)}, 0, 0, ""},
		{Limits{MaxSpendMicroUSD: LimitOf(0)}, 0, 1, errcode.CostLimitExceeded},
		{Limits{}, math.MaxInt64, math.MaxInt64, ""}, // no money limit: no reservation
		{Limits{}, 0, -1, errcode.SpendAmountInvalid},
	}
	for _, tt := range spend {
		wantCode(t, tt.limits.CheckSpend(tt.reserved, tt.amount), tt.code)
	}
}
