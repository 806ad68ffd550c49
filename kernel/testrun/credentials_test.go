package testrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run"
)

// setup.credentials stores the value as the declaring connector's
// credential in the scratch home, which is where a test's engine resolves
// it, with no environment fallback; the person's home is never touched.
func TestSetupCredentialsStoreInTheScratchHome(t *testing.T) {
	scratch, personal := t.TempDir(), t.TempDir()
	p := &pkg.Package{Name: "acme", Connectors: map[string]*pkg.Connector{
		"forge": {ID: "forge", Credential: &pkg.ConnectorCredential{Variable: "FORGE_TOKEN", Header: "Authorization"}},
		"plain": {ID: "plain"},
	}}
	tc := &pkg.TestCase{Setup: &pkg.TestSetup{Credentials: map[string]string{"FORGE_TOKEN": "tok-fixture"}}}
	home := filepath.Join(scratch, ".home")
	if err := storeCredentials(tc, p, home); err != nil {
		t.Fatal(err)
	}
	k := &run.Kernel{Options: run.Options{HomeDir: personal, LookupEnv: func(string) (string, bool) { return "from-the-shell", true }}}
	v, err := k.ForTest(run.Scratch{CredentialHome: home, CredentialEnv: noEnv}).CredentialResolver().Resolve("forge", "FORGE_TOKEN")
	if err != nil || v != "tok-fixture" {
		t.Fatalf("want the test's value, got %q %v", v, err)
	}
	info, err := os.Stat(credential.SecretPath(home, "connector-forge"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the stored credential must be 0600: %v %v", info, err)
	}
	if entries, _ := os.ReadDir(personal); len(entries) != 0 {
		t.Fatalf("the person's home was written: %v", entries)
	}
	// With nothing stored, the shell's variable is not a fallback.
	empty := k.ForTest(run.Scratch{CredentialHome: t.TempDir(), CredentialEnv: noEnv})
	if _, err := empty.CredentialResolver().Resolve("forge", "FORGE_TOKEN"); contract.CodeOf(err) != "credential_missing" {
		t.Fatalf("a test has no live fallback, got %v", err)
	}
	tc.Setup.Credentials = map[string]string{"NOBODY_DECLARES": "x"}
	if err := storeCredentials(tc, p, home); contract.CodeOf(err) != "test_credential_unknown" || !strings.Contains(err.Error(), "NOBODY_DECLARES") {
		t.Fatalf("want test_credential_unknown, got %v", err)
	}
}
