package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/journal"
)

// BenchmarkSpendReserve is what a priced call under a money limit adds
// before it is sent: one durable IMMEDIATE transaction that reads the root
// run's spend stream, sums it, admits the quote against the limit and
// appends the reservation (kernel/run/connector's Money.Reserve, with the same
// arithmetic). The stream starts with 100 reservations, a run that already
// made 100 priced calls. An unpriced call pays none of this.
func BenchmarkSpendReserve(b *testing.B) {
	j, err := journal.Open(b.TempDir(), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	if err := j.CreateRun(ctx, &journal.Run{RunID: "run_bench", SkillName: "s", Method: "m", PackageDir: "/p", PackageDigest: "sha256:p", ClosureDigest: "sha256:c", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{}`)}); err != nil {
		b.Fatal(err)
	}
	type event struct {
		Address  string `json:"address"`
		MicroUSD int64  `json:"micro_usd"`
	}
	limits := authority.Limits{MaxSpendMicroUSD: authority.LimitOf(1 << 50)}
	admit := func(prior []journal.Event) error {
		var held authority.Spend
		for _, ev := range prior {
			var e event
			if err := json.Unmarshal(ev.Data, &e); err != nil {
				return err
			}
			held.Held += e.MicroUSD
		}
		_, err := held.Reserve(limits, 2500)
		return err
	}
	for i := 0; i < 100; i++ {
		if err := j.AppendEventChecked(ctx, "run_bench", "spend", "spend.reserved", event{fmt.Sprint(i), 2500}, admit); err != nil {
			b.Fatal(err)
		}
	}
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		// Each iteration is a fresh stream position, so the stream grows
		// by b.N; reading it stays the dominant cost only at large N.
		if err := j.AppendEventChecked(ctx, "run_bench", "spend", "spend.reserved", event{fmt.Sprint(i + 100), 2500}, admit); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	lat.report(b, time.Microsecond, "us")
}
