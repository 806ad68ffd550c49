package testrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
)

// sealSeed seals a step receipt with the fixture key and writes it into the
// package at rel, returning its id.
func sealSeed(t *testing.T, pkgDir, rel string, mutate func([]byte) []byte) string {
	t.Helper()
	signer, err := receipt.NewSigner(receipt.FixtureKey())
	if err != nil {
		t.Fatal(err)
	}
	rec, raw, err := signer.Seal(receipt.Body{
		Kind: receipt.KindStep, RunID: "run_seed", SkillName: "seed", StepID: "one", StepKind: "tool",
		Outcome: seal.OutcomeCompleted, StartedAt: "2026-01-01T00:00:00.000Z", SealedAt: "2026-01-01T00:00:00.000Z",
	})
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		raw = mutate(raw)
	}
	p := filepath.Join(pkgDir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return rec.ID
}

func seedStore(t *testing.T) (*receipt.Store, receipt.KeySet) {
	t.Helper()
	store, err := receipt.Open(filepath.Join(t.TempDir(), "receipts"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	signer, err := receipt.NewSigner(receipt.FixtureKey())
	if err != nil {
		t.Fatal(err)
	}
	return store, receipt.NewKeySet(signer.PublicKey())
}

func seedCase(paths ...string) *pkg.TestCase {
	return &pkg.TestCase{Setup: &pkg.TestSetup{Receipts: paths}}
}

// TestSeedReceipts: a verified seed lands in the test's store; a missing
// seed, one that is not a receipt, and one whose signature no longer
// matches its body each fail the test before it runs.
func TestSeedReceipts(t *testing.T) {
	pkgDir := t.TempDir()
	id := sealSeed(t, pkgDir, "fixtures/good.json", nil)
	store, keys := seedStore(t)
	if err := seedReceipts(context.Background(), pkgDir, seedCase("fixtures/good.json"), store, keys); err != nil {
		t.Fatalf("a good seed: %v", err)
	}
	if _, _, err := store.Get(id); err != nil {
		t.Fatalf("the seed is not in the test's store: %v", err)
	}

	sealSeed(t, pkgDir, "fixtures/forged.json", func(raw []byte) []byte {
		return []byte(strings.Replace(string(raw), `"step_id":"one"`, `"step_id":"two"`, 1))
	})
	if err := os.WriteFile(filepath.Join(pkgDir, "fixtures", "junk.json"), []byte(`{"not":"a receipt"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ path, want string }{
		"missing":       {"fixtures/absent.json", "fixtures/absent.json does not exist in the package"},
		"not a receipt": {"fixtures/junk.json", "fixtures/junk.json"},
		"altered body":  {"fixtures/forged.json", "does not verify"},
	} {
		t.Run(name, func(t *testing.T) {
			store, keys := seedStore(t)
			err := seedReceipts(context.Background(), pkgDir, seedCase(c.path), store, keys)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming %q", err, c.want)
			}
		})
	}
}
