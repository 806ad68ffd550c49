package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
)

// receiptBenchSigner signs with a fixed key so every run writes the same bytes.
func receiptBenchSigner(tb testing.TB) *receipt.Signer {
	tb.Helper()
	seed := sha256.Sum256([]byte("runx bench receipt key"))
	s, err := receipt.NewSigner(ed25519.NewKeyFromSeed(seed[:]))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// receiptBenchBody is a step body with every digest a real step carries, so
// the measured bytes are the size runx writes.
func receiptBenchBody(runID, stepID, stepKind string, children ...receipt.ChildRef) receipt.Body {
	d := func(s string) string { return canon.DigestBytes([]byte(s)) }
	return receipt.Body{
		Kind:            receipt.KindStep,
		RunID:           runID,
		SkillName:       "bench-skill",
		Method:          "main",
		StepID:          stepID,
		StepKind:        stepKind,
		Capability:      "fs.read",
		Execution:       "native",
		PackageDigest:   d("package"),
		ClosureDigest:   d("closure"),
		AuthorityDigest: d("authority"),
		InputsDigest:    d("inputs " + stepID),
		Outcome:         seal.OutcomeCompleted,
		OutputDigest:    d("output " + stepID),
		StartedAt:       "2026-01-02T03:04:05.000Z",
		SealedAt:        "2026-01-02T03:04:05.012Z",
		Runtime:         &receipt.Runtime{RunxVersion: "0.1.0", Plugin: &receipt.PluginRef{Name: "fs", Version: "0.1.0", Protocol: 1}},
		Children:        children,
	}
}

func receiptBenchStore(tb testing.TB, parent string) *receipt.Store {
	tb.Helper()
	st, err := receipt.Open(filepath.Join(parent, "receipts"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// receiptBenchTmpfs is a scratch directory in memory, when the machine has
// one, to tell the cost of runx's code from the cost of the disk's file
// creation, which on a busy ext4 volume can dominate a seal.
func receiptBenchTmpfs(tb testing.TB) (string, bool) {
	tb.Helper()
	if info, err := os.Stat("/dev/shm"); err != nil || !info.IsDir() {
		return "", false
	}
	dir, err := os.MkdirTemp("/dev/shm", "runx-bench-")
	if err != nil {
		return "", false
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir, true
}

func receiptBenchPut(tb testing.TB, st *receipt.Store, s *receipt.Signer, body receipt.Body, root bool) receipt.ChildRef {
	tb.Helper()
	r, b, err := s.Seal(body)
	if err != nil {
		tb.Fatal(err)
	}
	if root {
		err = st.PutRoot(r, b)
	} else {
		err = st.Put(r, b)
	}
	if err != nil {
		tb.Fatal(err)
	}
	ref, err := receipt.ChildRefOf(b)
	if err != nil {
		tb.Fatal(err)
	}
	return ref
}

// receiptBenchCPU is the CPU time this process has used, user and system,
// from /proc/self/stat; ok is false where there is no /proc. On a shared
// machine wall-clock rates move with other tenants' load, so the benchmarks
// also report rates per CPU-second, which do not.
func receiptBenchCPU() (time.Duration, bool) {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14 and stime 15.
	end := strings.LastIndexByte(string(data), ')')
	if end < 0 {
		return 0, false
	}
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	// USER_HZ is 100 on every Linux architecture Go supports.
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

// BenchmarkReceiptSealStore measures sealing a step receipt and storing it
// below the root (no fsync; the root put makes the run durable), in the
// temporary directory (disk) and, where there is one, in tmpfs.
// Target: more than 5,000 receipts/s.
func BenchmarkReceiptSealStore(b *testing.B) {
	b.Run("disk", func(b *testing.B) { benchSealStore(b, b.TempDir()) })
	b.Run("tmpfs", func(b *testing.B) {
		dir, ok := receiptBenchTmpfs(b)
		if !ok {
			b.Skip("no /dev/shm on this machine")
		}
		benchSealStore(b, dir)
	})
}

func benchSealStore(b *testing.B, dir string) {
	st := receiptBenchStore(b, dir)
	s := receiptBenchSigner(b)
	b.ReportAllocs()
	cpu0, cpuOK := receiptBenchCPU()
	i := 0
	for b.Loop() {
		r, data, err := s.Seal(receiptBenchBody("run-bench", fmt.Sprintf("step-%d", i), "tool"))
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Put(r, data); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "receipts/s")
	if cpu1, ok := receiptBenchCPU(); ok && cpuOK && cpu1 > cpu0 {
		b.ReportMetric(float64(i)/(cpu1-cpu0).Seconds(), "receipts/cpu-s")
	}
}

// buildTree30002 writes the largest tree a verifier admits: the root run, a
// script step, and for each of the 10,000 calls the script may make, the
// call's step, the child run it started and that run's step.
func buildTree30002(tb testing.TB, st *receipt.Store, s *receipt.Signer) string {
	tb.Helper()
	const calls = 10_000
	calls3 := make([]receipt.ChildRef, 0, calls)
	for i := range calls {
		childRun := fmt.Sprintf("run-child-%d", i)
		leaf := receiptBenchPut(tb, st, s, receiptBenchBody(childRun, "work", "tool"), false)
		run := receiptBenchBody(childRun, "", "", leaf)
		run.Kind = receipt.KindRun
		runRef := receiptBenchPut(tb, st, s, run, false)
		calls3 = append(calls3, receiptBenchPut(tb, st, s, receiptBenchBody("run-root", fmt.Sprintf("script/%d", i), "skill", runRef), false))
	}
	script := receiptBenchPut(tb, st, s, receiptBenchBody("run-root", "script", "script", calls3...), false)
	root := receiptBenchBody("run-root", "", "", script)
	root.Kind = receipt.KindRun
	r, data, err := s.Seal(root)
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.PutRoot(r, data); err != nil {
		tb.Fatal(err)
	}
	return r.ID
}

// heapPeak samples the live heap while it runs, since ReadMemStats only
// reports the present and the walk's peak is what the bound is about.
type heapPeak struct {
	peak atomic.Uint64
	stop chan struct{}
	wg   sync.WaitGroup
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > h.peak.Load() {
				h.peak.Store(m.HeapAlloc)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) done() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak.Load()
}

// BenchmarkReceiptTreeVerify30002 verifies a tree at the bound.
// Targets: under 3 s and under 64 MiB of heap.
func BenchmarkReceiptTreeVerify30002(b *testing.B) {
	st := receiptBenchStore(b, b.TempDir())
	s := receiptBenchSigner(b)
	rootID := buildTree30002(b, st, s)
	keys := receipt.NewKeySet(s.PublicKey())
	runtime.GC()

	var peak uint64
	n := 0
	cpu0, cpuOK := receiptBenchCPU()
	for b.Loop() {
		h := startHeapPeak()
		rep := receipt.Verify(context.Background(), st, rootID, keys, receipt.Limits{})
		peak = max(peak, h.done())
		if rep.Status != receipt.StatusVerified || rep.Receipts != receipt.MaxTreeReceipts || rep.Depth != 4 {
			b.Fatalf("verify: %s, %d receipts, depth %d, problems %v", rep.Status, rep.Receipts, rep.Depth, rep.Problems)
		}
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(n), "ms/op")
	if cpu1, ok := receiptBenchCPU(); ok && cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/float64(n), "cpu-ms/op")
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
