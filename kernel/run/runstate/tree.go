package runstate

import (
	"fmt"
	"sync/atomic"
)

// Tree bounds every verifier holds a receipt tree to.
const (
	TreeMaxReceipts = 30002
	TreeMaxDepth    = 64
)

// Tree is a run's place in its tree and what the tree shares: the budgets
// every run of it draws on, its spend, and where this run sits.
type Tree struct {
	// Budget counts the tree's receipts and plugin answers.
	Budget *Budget
	// Depth is the receipt level of this run's own receipt below the root.
	Depth int
	// RunDepth is how deep this run nests (the root is 0, its children 1),
	// and Chain the packages from the root's down to this run's, as the
	// authority's max_child_depth and packages read them.
	RunDepth int
	Chain    []string
	// Path is this run's place under the root ("" for the root, "send" for
	// the child its step send started): request addresses are path#address.
	Path string
	// Spend is what the run's tree holds against its money limit, shared
	// with every child run (nil where nothing runs, as in inspection).
	Spend *SpendTree
}

// Address is a unit's address from the root: local inside this run,
// path#local below it.
func (t *Tree) Address(local string) string {
	if t.Path == "" {
		return local
	}
	return t.Path + "#" + local
}

// Budget counts receipts as they are admitted, at every depth of one tree.
type Budget struct {
	Limit int
	Used  atomic.Int64
	// AnswerLimit bounds the bytes the tree's plugins answer, Answered
	// counts them.
	AnswerLimit int64
	Answered    atomic.Int64
}

// Admit takes n receipts from the budget, or refuses without taking any.
func (b *Budget) Admit(n int) bool {
	for {
		cur := b.Used.Load()
		if cur+int64(n) > int64(b.Limit) {
			return false
		}
		if b.Used.CompareAndSwap(cur, cur+int64(n)) {
			return true
		}
	}
}

// Bound names the receipt ceiling and its value, for the refusal that
// hits it: the tree bound every verifier holds, or RUNX_MAX_RECEIPTS
// narrowing it; a unit below TreeMaxDepth levels is bound by that too.
func (b *Budget) Bound() string {
	return fmt.Sprintf("its bound of %d receipts (RUNX_MAX_RECEIPTS, at most %d) or %d levels", b.Limit, TreeMaxReceipts, TreeMaxDepth)
}

// Replay counts receipts a run already holds, without refusing.
func (b *Budget) Replay(n int) { b.Used.Add(int64(n)) }

// SpendTree names the run whose spend stream a tree's reservations are
// recorded on: the root, shared by its child runs and their turn calls, so
// none can widen the limit. The stream is the only account of what the tree
// holds; every reservation reads it and appends in one transaction.
type SpendTree struct {
	RootID string
}
