package authority

import (
	"fmt"
	"strconv"

	"github.com/runxhq/runx/sdk/errcode"
)

// maxLimit is the largest limit a document may state: 2^53-1, the largest
// integer every JSON reader (and RFC 8785, which uses IEEE doubles) holds
// exactly, so the digest a host recomputes matches the value runx enforced.
const maxLimit = 1<<53 - 1

// Limit is an optional non-negative bound. The zero value is "not stated",
// which bounds nothing; a stated 0 is a real bound (no child runs, no
// spend), which is why this is not a bare integer.
type Limit struct {
	n   int64
	set bool
}

// LimitOf is a stated bound of n; n must be non-negative.
func LimitOf(n int64) Limit { return Limit{n: n, set: true} }

// Value returns the bound and whether one was stated.
func (l Limit) Value() (int64, bool) { return l.n, l.set }

// Int is the bound as an int, or 0 when none was stated: the convention
// ConcurrencyFor and the run's step concurrency share.
func (l Limit) Int() int {
	if !l.set {
		return 0
	}
	return int(l.n)
}

// IsZero reports whether nothing was stated; encoding/json's omitzero uses it.
func (l Limit) IsZero() bool { return !l.set }

// Meet is the tighter of two bounds; an unstated bound is the identity.
func (l Limit) Meet(o Limit) Limit {
	switch {
	case !l.set:
		return o
	case !o.set:
		return l
	case o.n < l.n:
		return o
	}
	return l
}

// Allows reports whether n is within the bound.
func (l Limit) Allows(n int64) bool { return !l.set || n <= l.n }

// MarshalJSON writes the bound as a JSON integer.
func (l Limit) MarshalJSON() ([]byte, error) {
	if !l.set {
		return nil, fmt.Errorf("authority: an unstated limit has no JSON form")
	}
	return strconv.AppendInt(nil, l.n, 10), nil
}

// Limits are the bounds an authority sets on a run as a whole.
type Limits struct {
	// MaxConcurrency is the most calls the run, its steps and child runs
	// included, may have executing at once; at least 1 when stated.
	MaxConcurrency Limit `json:"max_concurrency,omitzero"`
	// MaxFanout is the most child runs one turn or step may start.
	MaxFanout Limit `json:"max_fanout,omitzero"`
	// MaxChildDepth is how deep child runs may nest; the root is depth 0.
	MaxChildDepth Limit `json:"max_child_depth,omitzero"`
	// MaxSpendMicroUSD is the most the run may spend, 1 = $0.000001.
	MaxSpendMicroUSD Limit `json:"max_spend_micro_usd,omitzero"`
}

// Meet narrows every bound to the tighter of the two; nothing can widen one.
func (l Limits) Meet(o Limits) Limits {
	return Limits{
		MaxConcurrency:   l.MaxConcurrency.Meet(o.MaxConcurrency),
		MaxFanout:        l.MaxFanout.Meet(o.MaxFanout),
		MaxChildDepth:    l.MaxChildDepth.Meet(o.MaxChildDepth),
		MaxSpendMicroUSD: l.MaxSpendMicroUSD.Meet(o.MaxSpendMicroUSD),
	}
}

// CheckFanout refuses starting n child runs at once where max_fanout is lower.
func (l Limits) CheckFanout(n int) error {
	if l.MaxFanout.Allows(int64(n)) {
		return nil
	}
	return refusal(errcode.FanoutLimitExceeded, fmt.Sprintf("max_fanout %d", l.MaxFanout.n),
		fmt.Sprintf("starting %d child runs at once is more than the authority allows", n))
}

// CheckChildDepth refuses starting a child run at depth (the root's children
// are depth 1) deeper than max_child_depth.
func (l Limits) CheckChildDepth(depth int) error {
	if l.MaxChildDepth.Allows(int64(depth)) {
		return nil
	}
	return refusal(errcode.ChildDepthLimitExceeded, fmt.Sprintf("max_child_depth %d", l.MaxChildDepth.n),
		fmt.Sprintf("a child run at depth %d nests deeper than the authority allows", depth))
}

// CheckSpend decides whether a call quoting amount micro-USD may reserve it
// when reserved is already held against max_spend_micro_usd. Without a money
// limit every amount passes: no dollar reservation is made. The sum is
// checked without overflowing, so a huge quote cannot wrap around the limit.
func (l Limits) CheckSpend(reserved, amount int64) error {
	if reserved < 0 || amount < 0 {
		return refusal(errcode.SpendAmountInvalid, "max_spend_micro_usd",
			fmt.Sprintf("spend amounts are never negative (reserved %d, quote %d)", reserved, amount))
	}
	limit, ok := l.MaxSpendMicroUSD.Value()
	if !ok {
		return nil
	}
	if reserved > limit || amount > limit-reserved {
		return refusal(errcode.CostLimitExceeded, fmt.Sprintf("max_spend_micro_usd %d", limit),
			fmt.Sprintf("a quote of %d micro-USD with %d already reserved is over the run's spend limit", amount, reserved))
	}
	return nil
}

// ConcurrencyFor is how many calls a step may run at once: the least of the
// step's own concurrency, the authority's max_concurrency and the host's
// ceiling. A step or authority value of 0 or less states nothing. Taking the
// least at every level is what keeps nesting from multiplying concurrency.
// The answer is never below 1, so a run always makes progress.
func ConcurrencyFor(stepConcurrency, authority, hostCeiling int) int {
	n := hostCeiling
	if n < 1 {
		n = 1
	}
	if authority > 0 && authority < n {
		n = authority
	}
	if stepConcurrency > 0 && stepConcurrency < n {
		n = stepConcurrency
	}
	return n
}

// ParseHostCeiling reads a host resource ceiling from an environment value
// such as RUNX_MAX_CONCURRENCY or RUNX_MAX_RECEIPTS. An empty value (the
// variable unset) gives def. Anything else must be a positive decimal
// integer written with digits only: a sign, space, fraction or zero is
// refused rather than guessed at, because a run must not start under a
// ceiling the host did not mean. A ceiling that is itself bounded, as
// RUNX_MAX_RECEIPTS is by the tree bound every verifier holds, is narrowed
// to that bound by the caller with min: a host may ask for fewer, never more.
func ParseHostCeiling(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	bad := func() (int, error) {
		shown := s
		if len(shown) > 32 { // an environment value can be anything; show enough to find it
			shown = shown[:32] + "..."
		}
		return 0, refusal(errcode.HostCeilingInvalid, "host ceiling",
			fmt.Sprintf("%q is not a positive integer", shown))
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return bad()
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return bad()
	}
	return n, nil
}
