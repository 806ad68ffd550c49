package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/journal"
)

// Reservations from many goroutines (fan-out items, another process's turn
// calls) are admitted against one record: the journal's transaction is
// what serialises them, so the sum never passes the limit.
func TestSpendJournalReservationsAreSerialised(t *testing.T) {
	j, err := journal.Open(t.TempDir(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ctx := context.Background()
	if err := j.CreateRun(ctx, &journal.Run{RunID: "run_root", SkillName: "s", Method: "m", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	limits := authority.Limits{MaxSpendMicroUSD: authority.LimitOf(1000)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted, refused := 0, 0
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := j.AppendEventChecked(ctx, "run_root", SpendStream, EventSpendReserved, SpendEvent{Address: fmt.Sprint(i), MicroUSD: 30}, func(prior []journal.Event) error {
				h, err := HeldBy(prior)
				if err != nil {
					return err
				}
				_, err = h.Reserve(limits, 30)
				return err
			})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				admitted++
			} else {
				refused++
			}
		}()
	}
	wg.Wait()
	if admitted != 33 || refused != 7 {
		t.Fatalf("admitted %d, refused %d; want 33 and 7 (1000/30)", admitted, refused)
	}
}

func TestWithSpendLimitOnlyNarrows(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		n    int64
		want int64
	}{
		{"", 500, 500},
		{`{"effects":"ask"}`, 500, 500},
		{`{"max_spend_micro_usd":100}`, 500, 100},
		{`{"max_spend_micro_usd":900}`, 500, 500},
	} {
		out, err := WithSpendLimit([]byte(tc.doc), tc.n)
		if err != nil {
			t.Fatal(err)
		}
		a, err := authority.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := a.MaxSpendMicroUSD.Value(); v != tc.want {
			t.Errorf("%s narrowed by %d gives %d, want %d", tc.doc, tc.n, v, tc.want)
		}
		if tc.doc == `{"effects":"ask"}` && a.Effects != authority.EffectsAsk {
			t.Error("narrowing spend dropped the document's other fields")
		}
	}
	if _, err := WithSpendLimit([]byte(`{"nope":1}`), 1); err == nil {
		t.Error("a document that does not parse must stay refused")
	}
}
