package receipt

// The bound every verifier holds a tree to. It follows the kernel's ceiling
// of 10,000 calls per script step: three receipts per such skill call (the
// call's own, its child run's and that run's step) plus the root and the
// script step.
const (
	MaxTreeReceipts = 30_002
	MaxTreeDepth    = 64 // levels below the root
)

// defaultMaxProblems bounds a report: a tree of 30,002 receipts signed by
// an untrusted key must not produce 30,002 problems.
const defaultMaxProblems = 100

// Limits narrows verification. A zero field takes the default; a field above
// the tree bound is narrowed to it, because the bound is one rule for every
// verifier, not a setting.
type Limits struct {
	MaxReceipts int
	MaxDepth    int
	MaxProblems int
}

// DefaultLimits is the tree bound with the default problem cap.
func DefaultLimits() Limits {
	return Limits{MaxReceipts: MaxTreeReceipts, MaxDepth: MaxTreeDepth, MaxProblems: defaultMaxProblems}
}

func (l Limits) normalized() Limits {
	d := DefaultLimits()
	if l.MaxReceipts <= 0 || l.MaxReceipts > MaxTreeReceipts {
		l.MaxReceipts = d.MaxReceipts
	}
	if l.MaxDepth <= 0 || l.MaxDepth > MaxTreeDepth {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxProblems <= 0 {
		l.MaxProblems = d.MaxProblems
	}
	return l
}
