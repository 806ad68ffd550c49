package testrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// setupAuthority is the test's setup.authority as the run's host-stated
// authority (what --run-authority states), checked as one; a test that
// states none runs with none.
func setupAuthority(tc *pkg.TestCase) ([]byte, error) {
	if tc.Setup == nil || tc.Setup.Authority == nil {
		return nil, nil
	}
	raw, err := canon.Canonical(tc.Setup.Authority)
	if err != nil {
		return nil, fmt.Errorf("setup.authority: %w", err)
	}
	if _, err := run.ParseAuthority(raw); err != nil {
		return nil, fmt.Errorf("setup.authority: %w", err)
	}
	return raw, nil
}

// seedReceipts places the test's setup.receipts in its store, then verifies
// every tree they form under the test's keys: a seed that is missing, not
// a receipt, or whose tree does not verify fails the test before it runs.
func seedReceipts(ctx context.Context, pkgDir string, tc *pkg.TestCase, store *receipt.Store, keys receipt.KeySet) error {
	if tc.Setup == nil || len(tc.Setup.Receipts) == 0 {
		return nil
	}
	seeded := map[string]bool{}
	committed := map[string]bool{}
	var order []string
	for _, rel := range tc.Setup.Receipts {
		raw, err := os.ReadFile(filepath.Join(pkgDir, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("setup.receipts: %s does not exist in the package", rel)
		}
		if err != nil {
			return fmt.Errorf("setup.receipts: %s: %w", rel, err)
		}
		rec, err := receipt.Decode(raw)
		if err != nil {
			return fmt.Errorf("setup.receipts: %s: %w", rel, err)
		}
		if err := store.Put(rec, raw); err != nil {
			return fmt.Errorf("setup.receipts: %s: %w", rel, err)
		}
		if !seeded[rec.ID] {
			order = append(order, rec.ID)
		}
		seeded[rec.ID] = true
		for _, c := range rec.Body.Children {
			committed[c.ReceiptID] = true
		}
	}
	for _, id := range order {
		if committed[id] {
			continue // verified with the tree that commits it
		}
		if rep := receipt.Verify(ctx, store, id, keys, receipt.Limits{}); rep.Status != receipt.StatusVerified {
			return fmt.Errorf("setup.receipts: the tree of %s does not verify: %s %v", id, rep.Status, rep.Problems)
		}
	}
	return nil
}

// noEnv is a test run's credential environment: empty, so a connector's
// variable set in the person's shell never reaches a test.
func noEnv(string) (string, bool) { return "", false }

// storeCredentials carries out setup.credentials: each value the test sets
// for a variable becomes the stored credential of the package's connector
// that declares that variable, in the test's scratch runx home (0600, like
// runx connector use with a piped value). A variable no connector of the
// package declares fails the test: it would deliver nothing.
func storeCredentials(tc *pkg.TestCase, p *pkg.Package, home string) error {
	if tc.Setup == nil || len(tc.Setup.Credentials) == 0 {
		return nil
	}
	variables := make([]string, 0, len(tc.Setup.Credentials))
	for v := range tc.Setup.Credentials {
		variables = append(variables, v)
	}
	sort.Strings(variables)
	for _, variable := range variables {
		var names []string
		for name, c := range p.Connectors {
			if c.Credential != nil && c.Credential.Variable == variable {
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			return contract.Errorf(errcode.TestCredentialUnknown, "setup.credentials: no connector of package %s declares the credential variable %s", p.Name, variable)
		}
		sort.Strings(names)
		for _, name := range names {
			secret := credential.DefaultSecretName(name)
			if err := credential.SetSecret(home, secret, []byte(tc.Setup.Credentials[variable])); err != nil {
				return fmt.Errorf("setup.credentials: %w", err)
			}
			if err := credential.Bind(home, credential.Binding{Connector: name, Variable: variable, Secret: secret}); err != nil {
				return fmt.Errorf("setup.credentials: %w", err)
			}
		}
	}
	return nil
}
