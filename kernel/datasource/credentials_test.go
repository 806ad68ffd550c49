package datasource

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// A third-party adapter (data.d1 here) declares its own credential names;
// the kernel delivers exactly those, by name, and knows none of them.
func TestCredentialsAreTheAdaptersDeclaredNames(t *testing.T) {
	doc := `{"data_sources":{"tenant://a/b":{"adapter":"data.d1","profile":"edge-db"}}}`
	r := resolver(t, doc, map[string]string{"RUNX_DATA_PROFILE_EDGE_DB_API_TOKEN": "tok"})
	d1 := &sdk.Adapter{ID: "data.d1", Credentials: []string{"api_token", "account_id"}, BindingSchema: json.RawMessage(
		`{"type":"object","required":["adapter","profile"],"additionalProperties":false,"properties":{"adapter":{"const":"data.d1"},"profile":{"type":"string"}}}`)}
	r.Adapter = func(_ context.Context, id string) (*sdk.Adapter, error) {
		if id == "data.d1" {
			return d1, nil
		}
		return nil, os.ErrNotExist
	}
	home := t.TempDir()
	b, err := r.Resolve(bg, "tenant://a/b")
	if err != nil {
		t.Fatal(err)
	}
	// account_id is neither exported nor stored: refused, naming both ways.
	_, err = r.Credentials(bg, b, home)
	if contract.CodeOf(err) != "credential_missing" || !strings.Contains(err.Error(), "RUNX_DATA_PROFILE_EDGE_DB_ACCOUNT_ID") || !strings.Contains(err.Error(), "runx secret set data-edge-db-account_id") {
		t.Fatalf("want credential_missing naming the variable and the secret, got %v", err)
	}
	if strings.Contains(err.Error(), "tok") {
		t.Fatalf("the refusal carries a delivered value: %v", err)
	}
	os.MkdirAll(filepath.Join(home, "secrets"), 0o700)
	os.WriteFile(filepath.Join(home, "secrets", "data-edge-db-account_id"), []byte("acct\n"), 0o600)
	creds, err := r.Credentials(bg, b, home)
	if err != nil || len(creds) != 2 || creds["api_token"] != "tok" || creds["account_id"] != "acct" {
		t.Fatalf("want api_token and account_id delivered, got %v %v", creds, err)
	}
}

// A profile on an adapter that takes no credentials would deliver nothing
// the operator expects: refused.
func TestProfileOnAnAdapterWithoutCredentialsIsRefused(t *testing.T) {
	doc := `{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"x.sqlite"}}}`
	r := resolver(t, doc, nil)
	b, err := r.Resolve(bg, "tenant://a/b")
	if err != nil {
		t.Fatal(err)
	}
	b.Profile = "prod"
	if _, err := r.Credentials(bg, b, t.TempDir()); contract.CodeOf(err) != "credential_unsupported" {
		t.Fatalf("want credential_unsupported, got %v", err)
	}
}
