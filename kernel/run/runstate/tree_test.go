package runstate

import (
	"strings"
	"sync"
	"testing"
)

// TestBudgetAdmitRefusesWithoutTaking: a request past the bound takes
// nothing, so what is left stays for a smaller one.
func TestBudgetAdmitRefusesWithoutTaking(t *testing.T) {
	b := &Budget{Limit: 3}
	if !b.Admit(2) {
		t.Fatal("2 of 3 refused")
	}
	if b.Admit(2) {
		t.Fatal("2 more admitted past a bound of 3")
	}
	if got := b.Used.Load(); got != 2 {
		t.Fatalf("a refusal took receipts: used %d, want 2", got)
	}
	if !b.Admit(1) {
		t.Fatal("the last receipt refused")
	}
	b.Replay(5)
	if got := b.Used.Load(); got != 8 {
		t.Fatalf("replay counted %d, want 8", got)
	}
	if !strings.Contains(b.Bound(), "3 receipts") {
		t.Fatalf("bound %q does not name the limit", b.Bound())
	}
}

// TestBudgetAdmitConcurrent: children admitting at once never take more
// than the tree's bound.
func TestBudgetAdmitConcurrent(t *testing.T) {
	b := &Budget{Limit: 100}
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for range 50 {
		wg.Go(func() {
			for range 10 {
				if b.Admit(1) {
					mu.Lock()
					taken++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if taken != 100 || b.Used.Load() != 100 {
		t.Fatalf("taken %d, used %d; want 100 of a bound of 100", taken, b.Used.Load())
	}
}
