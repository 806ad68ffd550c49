package authority

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// Spend codes.

// Billing bases a cost declaration names: per request is billable once the
// request may have left; per success only when the provider answered as the
// operation accepts.
const (
	PerRequest = "request"
	PerSuccess = "success"
)

// Quote is a call's price as its capability's description declares it.
type Quote struct {
	// Declared: the capability carries a cost declaration.
	Declared bool
	// Known: the declaration states usd_micro (0 declares a free call).
	Known    bool
	MicroUSD int64
	Per      string
}

// AdmitQuote decides, before anything else about the call, whether its
// price can be counted against the money limit. Without a limit every
// quote passes (no dollar reservation is made). Under one, a declaration
// without usd_micro (metered at an unknown price) is refused, and so is a
// provider operation that declares no cost at all, because omitting the
// declaration does not establish a free call. A capability that is not a
// provider operation (a local tool) is priced only by a declaration.
func (l Limits) AdmitQuote(q Quote, provider bool) error {
	limit, ok := l.MaxSpendMicroUSD.Value()
	if !ok {
		return nil
	}
	rule := fmt.Sprintf("max_spend_micro_usd %d", limit)
	switch {
	case q.Declared && !q.Known:
		return refusal(errcode.CostQuoteUnknown, rule, "its cost declaration states no usd_micro, so its price is unknown and cannot be counted against the run's spend limit")
	case !q.Declared && provider:
		return refusal(errcode.CostQuoteUnknown, rule, "the operation declares no cost, so its price is unknown (an undeclared price is not free) and cannot be counted against the run's spend limit")
	case q.Known && q.MicroUSD < 0:
		return refusal(errcode.SpendAmountInvalid, rule, fmt.Sprintf("a quote is never negative (%d)", q.MicroUSD))
	}
	return nil
}

// Spend is what a run's tree holds against its money limit: every quote
// reserved for a call in flight, and every charge a call settled or may
// have incurred. It is a value; the caller serialises access to it.
type Spend struct {
	Held int64
}

// Reserve takes amount from what the limit leaves, or refuses with
// cost_limit_exceeded and takes nothing. The sum never overflows: CheckSpend
// compares amount with what is left rather than adding first.
func (s Spend) Reserve(l Limits, amount int64) (Spend, error) {
	if err := l.CheckSpend(s.Held, amount); err != nil {
		return s, err
	}
	if _, ok := l.MaxSpendMicroUSD.Value(); !ok {
		return s, nil
	}
	return Spend{Held: s.Held + amount}, nil
}

// Release gives back amount a call reserved and proved it did not owe. It
// never goes below zero: a release of more than is held is a bug, and it is
// refused rather than letting the run spend it twice.
func (s Spend) Release(amount int64) (Spend, error) {
	if amount < 0 || amount > s.Held {
		return s, refusal(errcode.SpendAmountInvalid, "max_spend_micro_usd",
			fmt.Sprintf("releasing %d micro-USD with %d held", amount, s.Held))
	}
	return Spend{Held: s.Held - amount}, nil
}

// CallEnd is how far a priced call got, as the kernel observed it.
type CallEnd int

const (
	// EndNotSent: refused before anything could leave (the plugin never
	// received the call).
	EndNotSent CallEnd = iota
	// EndAccepted: the provider answered as the operation accepts.
	EndAccepted
	// EndRejected: the provider answered, and not as the operation accepts.
	EndRejected
	// EndUnknown: the request may have left and its answer is unknown
	// (a timeout, a crash, an ambiguous commit).
	EndUnknown
)

// Settlement is what a reservation became.
type Settlement struct {
	// Release is the amount given back to the limit.
	Release int64
	// Settled is the charge settled, when it is known; nil when the call
	// may have been charged and nobody can say (the reservation is kept).
	Settled *int64
}

// Settle decides what a call's reservation of q becomes once it ended as
// end. Nothing sent owes nothing. Per request, a request that may have left
// is billable. Per success, only an accepted answer is; a rejected one
// owes nothing; an unknown one keeps its reservation with no settlement.
// An unknown quote settles nothing and reserved nothing.
func Settle(q Quote, end CallEnd) Settlement {
	zero := int64(0)
	if !q.Known {
		if end == EndNotSent {
			return Settlement{Settled: &zero}
		}
		return Settlement{}
	}
	charged := q.MicroUSD
	switch {
	case end == EndNotSent:
		return Settlement{Release: q.MicroUSD, Settled: &zero}
	case q.Per == PerRequest || end == EndAccepted:
		return Settlement{Settled: &charged}
	case end == EndRejected:
		return Settlement{Release: q.MicroUSD, Settled: &zero}
	}
	return Settlement{}
}

// ParseUSD reads a dollar amount as --max-spend states it ("2.50", "0.000001",
// "10") into micro-USD, exactly: digits, an optional point and at most six
// fraction digits, no sign, exponent or separator, at most 2^53-1 micro-USD.
// A float would round; a money limit must be what the person wrote.
func ParseUSD(s string) (int64, error) {
	bad := func(why string) (int64, error) {
		shown := s
		if len(shown) > 32 {
			shown = shown[:32] + "..."
		}
		return 0, refusal(errcode.SpendLimitInvalid, "--max-spend", fmt.Sprintf("%q is not a dollar amount: %s", shown, why))
	}
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" && (!dot || frac == "") {
		return bad("write digits, such as 2.50")
	}
	if len(frac) > 6 {
		return bad("runx counts in micro-USD, so at most six digits after the point")
	}
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return bad("only digits and one point")
			}
		}
	}
	if dot && frac == "" {
		return bad("digits must follow the point")
	}
	if len(whole) > 10 { // 2^53-1 micro-USD is about 9 billion dollars
		return bad("more than runx can count exactly")
	}
	var w int64
	if whole != "" {
		w, _ = strconv.ParseInt(whole, 10, 64)
	}
	f, _ := strconv.ParseInt((frac + "000000")[:6], 10, 64)
	n := w*1_000_000 + f
	if n > maxLimit {
		return bad("more than runx can count exactly")
	}
	return n, nil
}
