package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/kernel/notary/client"
	"github.com/runxhq/runx/kernel/notary/server"
	"github.com/runxhq/runx/kernel/notary/server/store"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
)

// BenchmarkNotarizeRoundTrip measures `runx notarize`'s exchange with a
// notary on loopback (docs/PERFORMANCE.md; target p50 < 10 ms): a sealed
// receipt posted through the client to a real server over SQLite, which
// checks its signature, counter-seals it, appends it to the log in a
// durable transaction and answers the record with its checkpoint and
// inclusion proof. Each iteration notarizes a receipt not yet logged.
func BenchmarkNotarizeRoundTrip(b *testing.B) {
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	srv, err := server.New(ctx, server.Config{Store: st, URL: base, PerMinute: 1 << 30, Burst: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	hs := server.HTTPServer(srv.Handler())
	go hs.Serve(ln)
	defer hs.Close()
	token, err := server.CreateToken(ctx, st, "bench")
	if err != nil {
		b.Fatal(err)
	}
	seed := sha256.Sum256([]byte("runx bench notarize"))
	signer, err := receipt.NewSigner(ed25519.NewKeyFromSeed(seed[:]))
	if err != nil {
		b.Fatal(err)
	}
	c := client.New(base, token)
	next := 0
	b.Run("sqlite", func(b *testing.B) {
		sealed := make([]*receipt.Sealed, b.N)
		for i := range sealed {
			next++
			_, raw, err := signer.Seal(receipt.Body{Kind: receipt.KindRun, RunID: fmt.Sprintf("run_%d", next), SkillName: "hello",
				Outcome: seal.OutcomeCompleted, StartedAt: "2026-01-02T03:04:05.000Z", SealedAt: "2026-01-02T03:04:06.000Z"})
			if err != nil {
				b.Fatal(err)
			}
			if sealed[i], err = receipt.CheckSealed(raw); err != nil {
				b.Fatal(err)
			}
		}
		lat := make(latencies, 0, b.N)
		b.ResetTimer()
		for _, s := range sealed {
			start := time.Now()
			if _, _, err := c.Notarize(ctx, s.Canonical, s.ContentHash); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		lat.report(b, time.Millisecond, "ms")
	})
}

// notaryLogEntries is the size of the log the inclusion workload proves in.
const notaryLogEntries = 1_000_000

// BenchmarkNotaryInclusionVerify1M measures `runx verify --notary`'s
// offline check of a record in a log of 1,000,000 entries (target < 1 ms):
// decoding the document, the counter-seal, the checkpoint's signature and
// the inclusion proof (20 hashes). proof_p50_us is the proof's check
// alone. The log's stored hashes are built once in memory (tlog's layout,
// about 2,000,000 hashes, 64 MB), every leaf a real statement.
func BenchmarkNotaryInclusionVerify1M(b *testing.B) {
	seed := sha256.Sum256([]byte("runx bench notary"))
	key := ed25519.NewKeyFromSeed(seed[:])
	pub := key.Public().(ed25519.PublicKey)
	cs, err := notary.NewCheckpointSigner(key)
	if err != nil {
		b.Fatal(err)
	}
	statement := func(i int64) notary.Statement {
		return notary.Statement{ContentHash: canon.DigestBytes(fmt.Appendf(nil, "receipt %d", i)), LogIndex: i,
			NotarizedAt: "2026-01-02T03:04:05.000Z", Origin: cs.Origin(), ReceiptID: canon.DigestBytes(fmt.Appendf(nil, "body %d", i)),
			Schema: notary.StatementSchema, SignerKeyID: canon.DigestBytes([]byte("signer"))}
	}
	var log notary.MemoryLog
	for i := range int64(notaryLogEntries) {
		st := statement(i)
		leaf, err := st.Leaf()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := log.Append(leaf); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	docs := make([][]byte, 256)
	leaves := make([]tlog.Hash, len(docs))
	indexes := make([]int64, len(docs))
	var rec *notary.Record
	for i := range docs {
		indexes[i] = r.Int64N(notaryLogEntries)
		st := statement(indexes[i])
		leaf, _ := st.Leaf()
		leaves[i] = tlog.RecordHash(leaf)
		if rec, err = notary.NewRecord(cs, st, notary.Seal(key, leaf), notaryLogEntries, &log, ""); err != nil {
			b.Fatal(err)
		}
		if docs[i], err = json.Marshal(rec); err != nil {
			b.Fatal(err)
		}
	}
	cp, err := notary.OpenCheckpoint(rec.Checkpoint, pub)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("record", func(b *testing.B) {
		lat := make(latencies, 0, b.N)
		proof := make(latencies, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if _, err := notary.VerifyRecord(docs[i%len(docs)], pub); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		b.StopTimer()
		// The proof alone, against the same tree.
		for i := 0; i < b.N; i++ {
			j := i % len(docs)
			var d struct {
				InclusionProof tlog.RecordProof `json:"inclusion_proof"`
			}
			_ = json.Unmarshal(docs[j], &d)
			start := time.Now()
			if err := tlog.CheckRecord(d.InclusionProof, cp.Size, cp.Root, indexes[j], leaves[j]); err != nil {
				b.Fatal(err)
			}
			proof = append(proof, time.Since(start))
		}
		lat.report(b, time.Microsecond, "us")
		b.ReportMetric(float64(proof.quantile(0.5))/float64(time.Microsecond), "proof_p50_us")
	})
}
