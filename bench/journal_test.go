package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/journal"
)

// BenchmarkJournalTransition is one recorded transition (a settled step) in
// .runx/state.sqlite with durability on (WAL, synced after the commit).
func BenchmarkJournalTransition(b *testing.B) {
	j, err := journal.Open(b.TempDir(), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	if err := j.CreateRun(ctx, &journal.Run{RunID: "run_bench", SkillName: "s", Method: "m", PackageDir: "/p", PackageDigest: "sha256:p", ClosureDigest: "sha256:c", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{}`)}); err != nil {
		b.Fatal(err)
	}
	out := json.RawMessage(`{"ok":true}`)
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		if err := j.RecordStep(ctx, &journal.Step{RunID: "run_bench", Address: fmt.Sprintf("s%d", i), StepID: "s", Status: "success", Output: out, ReceiptID: "sha256:r", Answered: int64(i)*211 + 1}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "transitions/s")
	lat.report(b, time.Microsecond, "us")
}

// BenchmarkJournalEffectFreeRun is the journal's share of one sealed
// effect-free call (BenchmarkMCPSession's): the run created under
// journal.Deferred (no sync), then sealed with its one step's record in the
// seal's transaction (durable: one sync of the WAL). The receipt files a
// real seal also logs are left out.
// Two thousand of them cycle the WAL through several checkpoints, so the
// figure is the steady state a long-lived server sees. cpu-µs/op is the
// process's user and system time an iteration.
func BenchmarkJournalEffectFreeRun(b *testing.B) {
	j, err := journal.Open(b.TempDir(), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	deferred := journal.Deferred(ctx)
	env := json.RawMessage(`{"outputs":{"message":"m"},"receipt_id":"sha256:r"}`)
	out := json.RawMessage(`{"message":"m"}`)
	lat := make(latencies, 0, b.N)
	cpu0 := fsBenchCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		id := fmt.Sprintf("run_%d", i)
		if err := j.CreateRun(deferred, &journal.Run{RunID: id, SkillName: "s", Method: "m", PackageDir: "/p", PackageDigest: "sha256:p", ClosureDigest: "sha256:c", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{"message":"m"}`)}); err != nil {
			b.Fatal(err)
		}
		step := &journal.Step{RunID: id, Address: "say", StepID: "say", Status: "success", Output: out, ReceiptID: "sha256:s"}
		if err := j.SealIndexed(deferred, id, "completed", "", "sha256:r", env, journal.RootLine{}, step); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	b.ReportMetric(float64(fsBenchCPU(b)-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
	lat.report(b, time.Microsecond, "µs")
}

// BenchmarkJournalStepAtDepth is recording one more step in a run that
// already holds n (10 and 2,000): the journal finds the run's next seq
// through the steps_seq index, so the cost stays flat in n. Before the
// index the lookup read every step row of the run, O(n) a step.
func BenchmarkJournalStepAtDepth(b *testing.B) {
	for _, n := range []int{10, 2000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			j, err := journal.Open(b.TempDir(), time.Now)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			ctx := journal.Deferred(context.Background())
			if err := j.CreateRun(ctx, &journal.Run{RunID: "run_bench", SkillName: "s", Method: "m", PackageDir: "/p", PackageDigest: "sha256:p", ClosureDigest: "sha256:c", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{}`)}); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < n; i++ {
				if err := j.RecordStep(ctx, &journal.Step{RunID: "run_bench", Address: fmt.Sprintf("pre%d", i), StepID: "s", Status: "success"}); err != nil {
					b.Fatal(err)
				}
			}
			lat := make(latencies, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				if err := j.RecordStep(ctx, &journal.Step{RunID: "run_bench", Address: fmt.Sprintf("s%d", i), StepID: "s", Status: "success"}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			lat.report(b, time.Microsecond, "us")
		})
	}
}
