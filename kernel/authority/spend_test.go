package authority

import (
	"math"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func known(n int64, per string) Quote {
	return Quote{Declared: true, Known: true, MicroUSD: n, Per: per}
}

func TestAdmitQuote(t *testing.T) {
	limited := Limits{MaxSpendMicroUSD: LimitOf(1000)}
	metered := Quote{Declared: true, Per: PerRequest}
	for _, tt := range []struct {
		name     string
		limits   Limits
		quote    Quote
		provider bool
		code     errcode.Code
	}{
		{"priced under a limit", limited, known(10, PerRequest), true, ""},
		{"free under a limit", limited, known(0, PerSuccess), true, ""},
		{"metered at an unknown price under a limit", limited, metered, true, errcode.CostQuoteUnknown},
		{"metered tool under a limit", limited, metered, false, errcode.CostQuoteUnknown},
		{"undeclared operation under a limit", limited, Quote{}, true, errcode.CostQuoteUnknown},
		{"undeclared local tool under a limit", limited, Quote{}, false, ""},
		{"negative quote", limited, known(-1, PerRequest), true, errcode.SpendAmountInvalid},
		{"zero limit still refuses the unknown", Limits{MaxSpendMicroUSD: LimitOf(0)}, Quote{}, true, errcode.CostQuoteUnknown},
		{"no limit: unknown passes", Limits{}, metered, true, ""},
		{"no limit: undeclared passes", Limits{}, Quote{}, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) { wantCode(t, tt.limits.AdmitQuote(tt.quote, tt.provider), tt.code) })
	}
}

func TestSpendReserveAndRelease(t *testing.T) {
	l := Limits{MaxSpendMicroUSD: LimitOf(1000)}
	for _, tt := range []struct {
		name      string
		held      int64
		amount    int64
		code      errcode.Code
		wantAfter int64
	}{
		{"fits", 0, 400, "", 400},
		{"exactly the limit", 600, 400, "", 1000},
		{"one over", 600, 401, errcode.CostLimitExceeded, 600},
		{"zero at the limit", 1000, 0, "", 1000},
		{"overflowing quote", 1, math.MaxInt64, errcode.CostLimitExceeded, 1},
		{"negative quote", 0, -5, errcode.SpendAmountInvalid, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Spend{Held: tt.held}.Reserve(l, tt.amount)
			wantCode(t, err, tt.code)
			if got.Held != tt.wantAfter {
				t.Errorf("held %d, want %d", got.Held, tt.wantAfter)
			}
		})
	}
	// No money limit: no dollar reservation is made, however large.
	if s, err := (Spend{}).Reserve(Limits{}, math.MaxInt64); err != nil || s.Held != 0 {
		t.Errorf("no limit reserved %d, %v", s.Held, err)
	}
	s := Spend{Held: 300}
	if s, err := s.Release(300); err != nil || s.Held != 0 {
		t.Errorf("release: %d %v", s.Held, err)
	}
	if _, err := s.Release(301); err == nil {
		t.Error("releasing more than is held must be refused")
	}
	wantCode(t, func() error { _, err := s.Release(-1); return err }(), errcode.SpendAmountInvalid)
}

func TestSettle(t *testing.T) {
	p := func(n int64) *int64 { return &n }
	for _, tt := range []struct {
		name    string
		quote   Quote
		end     CallEnd
		release int64
		settled *int64
	}{
		{"request, not sent", known(50, PerRequest), EndNotSent, 50, p(0)},
		{"request, accepted", known(50, PerRequest), EndAccepted, 0, p(50)},
		{"request, rejected: it left", known(50, PerRequest), EndRejected, 0, p(50)},
		{"request, unknown: it may have left", known(50, PerRequest), EndUnknown, 0, p(50)},
		{"success, not sent", known(50, PerSuccess), EndNotSent, 50, p(0)},
		{"success, accepted", known(50, PerSuccess), EndAccepted, 0, p(50)},
		{"success, rejected", known(50, PerSuccess), EndRejected, 50, p(0)},
		{"success, unknown keeps its reservation", known(50, PerSuccess), EndUnknown, 0, nil},
		{"free, accepted", known(0, PerSuccess), EndAccepted, 0, p(0)},
		{"unknown quote settles nothing", Quote{Declared: true, Per: PerSuccess}, EndAccepted, 0, nil},
		{"unknown quote not sent owes nothing", Quote{Declared: true, Per: PerRequest}, EndNotSent, 0, p(0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Settle(tt.quote, tt.end)
			if got.Release != tt.release {
				t.Errorf("release %d, want %d", got.Release, tt.release)
			}
			switch {
			case (got.Settled == nil) != (tt.settled == nil):
				t.Errorf("settled %v, want %v", got.Settled, tt.settled)
			case got.Settled != nil && *got.Settled != *tt.settled:
				t.Errorf("settled %d, want %d", *got.Settled, *tt.settled)
			}
			if got.Release != 0 && got.Settled != nil && *got.Settled != 0 {
				t.Error("a call both released and charged")
			}
		})
	}
}

func TestParseUSD(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		code errcode.Code
	}{
		{"2.50", 2_500_000, ""},
		{"0.000001", 1, ""},
		{"10", 10_000_000, ""},
		{".5", 500_000, ""},
		{"0", 0, ""},
		{"9007199254.740991", maxLimit, ""},
		{"9007199254.740992", 0, errcode.SpendLimitInvalid},
		{"99999999999", 0, errcode.SpendLimitInvalid},
		{"0.0000001", 0, errcode.SpendLimitInvalid},
		{"-1", 0, errcode.SpendLimitInvalid},
		{"+1", 0, errcode.SpendLimitInvalid},
		{"1e3", 0, errcode.SpendLimitInvalid},
		{"1.", 0, errcode.SpendLimitInvalid},
		{".", 0, errcode.SpendLimitInvalid},
		{"", 0, errcode.SpendLimitInvalid},
		{"1.2.3", 0, errcode.SpendLimitInvalid},
		{"$5", 0, errcode.SpendLimitInvalid},
		{"1,000", 0, errcode.SpendLimitInvalid},
		{" 1", 0, errcode.SpendLimitInvalid},
	} {
		got, err := ParseUSD(tt.in)
		if tt.code != "" {
			wantCode(t, err, tt.code)
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseUSD(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}
