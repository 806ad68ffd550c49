package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/readmodel"
)

// BenchmarkReceiptVerifyOneRun measures `runx verify` of the oldest run (a
// root and one step receipt) in a store holding 1, 1,000 and 10,000 runs,
// through the kernel's verify path (readmodel.Verify: the tree the receipt
// belongs to, then Verify). The store is in tmpfs where there is one, so
// the figures are runx's work, not the disk's.
// Target: the 10,000-run figure within 10% of the 1-run one.
func BenchmarkReceiptVerifyOneRun(b *testing.B) {
	for _, runs := range []int{1, 1000, 10000} {
		b.Run(fmt.Sprintf("runs=%d", runs), func(b *testing.B) {
			dir, ok := receiptBenchTmpfs(b)
			if !ok {
				dir = b.TempDir()
			}
			st := receiptBenchStore(b, dir)
			s := receiptBenchSigner(b)
			var oldest string
			for i := range runs {
				runID := fmt.Sprintf("run_%05d", i)
				step := receiptBenchPut(b, st, s, receiptBenchBody(runID, "call", "tool"), false)
				body := receiptBenchBody(runID, "", "", step)
				body.Kind, body.StepID, body.StepKind = receipt.KindRun, "", ""
				r, raw, err := s.Seal(body)
				if err != nil {
					b.Fatal(err)
				}
				if err := st.PutRoot(r, raw); err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					oldest = r.ID
				}
			}
			keys := receipt.NewKeySet(s.PublicKey())
			var lat latencies
			for b.Loop() {
				t0 := time.Now()
				rep, err := readmodel.Verify(context.Background(), st, keys, oldest)
				lat = append(lat, time.Since(t0))
				if err != nil || rep.Status != receipt.StatusVerified || rep.Receipts != 2 {
					b.Fatalf("verify: %v, %s, %d receipts, problems %v", err, rep.Status, rep.Receipts, rep.Problems)
				}
			}
			lat.report(b, time.Microsecond, "us")
		})
	}
}
