package registrycmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/sdk/errcode"
)

// key, token create and namespace over each store: the key is made once
// and printed the same every time, a token is printed once in its form,
// a tier is set and read back, and refusals are typed.
func TestServerVerbsOnStores(t *testing.T) {
	stores := map[string]func(t *testing.T) StoreFlags{
		"sqlite": func(t *testing.T) StoreFlags { return StoreFlags{Data: t.TempDir()} },
		"postgres": func(t *testing.T) StoreFlags {
			pg := testserver.StartPostgres(t)
			t.Setenv(DatabasePasswordEnv, pg.Password)
			return StoreFlags{Database: pg.URL()}
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			sf := open(t)
			out := &bytes.Buffer{}
			f := &cli.Factory{IO: &cli.IO{Out: out, Err: &bytes.Buffer{}}}
			doc := func() map[string]any {
				var d map[string]any
				if err := json.Unmarshal(out.Bytes(), &d); err != nil {
					t.Fatalf("not one JSON document: %s", out)
				}
				out.Reset()
				return d
			}

			if err := RunKey(ctx, &KeyOptions{Factory: f, Store: sf}); err != nil {
				t.Fatal(err)
			}
			first := strings.TrimSpace(out.String())
			out.Reset()
			if err := RunKey(ctx, &KeyOptions{Factory: f, Store: sf, JSON: true}); err != nil {
				t.Fatal(err)
			}
			if d := doc(); !strings.HasPrefix(first, "ed25519:") || d["key"] != first || !strings.HasPrefix(d["key_id"].(string), "ed25519:") {
				t.Fatalf("key %q, then %v", first, d)
			}

			if err := RunToken(ctx, &TokenOptions{Factory: f, Store: sf, Namespace: "acme", JSON: true}); err != nil {
				t.Fatal(err)
			}
			d := doc()
			token, _ := d["token"].(string)
			if d["namespace"] != "acme" || !strings.HasPrefix(token, "runxreg_") || len(token) != len("runxreg_")+80 || d["id"] != token[len("runxreg_"):][:16] {
				t.Fatalf("token: %v", d)
			}
			id := d["id"].(string)

			// list names the token by id, never the token; revoke marks it
			// revoked, which list then shows.
			if err := RunTokenList(ctx, &TokenOptions{Factory: f, Store: sf, Namespace: "acme", JSON: true}); err != nil {
				t.Fatal(err)
			}
			listed := out.String()
			if d := doc(); len(d["tokens"].([]any)) != 1 || d["tokens"].([]any)[0].(map[string]any)["id"] != id || strings.Contains(listed, token[len("runxreg_")+16:]) {
				t.Fatalf("token list: %s", listed)
			}
			if err := RunTokenRevoke(ctx, &TokenOptions{Factory: f, Store: sf, ID: id, JSON: true}); err != nil {
				t.Fatal(err)
			}
			if d := doc(); d["token"].(map[string]any)["id"] != id || d["token"].(map[string]any)["revoked_at"] == nil {
				t.Fatalf("revoke: %v", d)
			}
			if err := RunTokenList(ctx, &TokenOptions{Factory: f, Store: sf, JSON: true}); err != nil {
				t.Fatal(err)
			}
			if d := doc(); d["tokens"].([]any)[0].(map[string]any)["revoked_at"] == nil {
				t.Fatalf("the list does not show the revocation: %v", d)
			}
			for given, code := range map[string]errcode.Code{"00000000000000ff": errcode.RegistryTokenNotFound, token: errcode.RegistryRequestInvalid} {
				if err := RunTokenRevoke(ctx, &TokenOptions{Factory: f, Store: sf, ID: given, JSON: true}); err == nil {
					t.Fatalf("revoke %.16s did not fail", given)
				}
				printed := out.String()
				if d := doc(); d["error"].(map[string]any)["code"] != string(code) || strings.Contains(printed, token[len("runxreg_")+16:]) {
					t.Fatalf("revoke %.16s: %s, want %s", given, printed, code)
				}
			}
			if err := RunToken(ctx, &TokenOptions{Factory: f, Store: sf, Namespace: "ACME", JSON: true}); err == nil {
				t.Fatal("a token for an invalid namespace was made")
			}
			if d := doc(); d["error"].(map[string]any)["code"] != string(errcode.RegistryNamespaceInvalid) {
				t.Fatalf("invalid namespace: %v", d)
			}

			for _, step := range []struct{ tier, want string }{{"", "community"}, {"verified", "verified"}, {"", "verified"}} {
				if err := RunNamespace(ctx, &NamespaceOptions{Factory: f, Store: sf, Namespace: "acme", Tier: step.tier, JSON: true}); err != nil {
					t.Fatal(err)
				}
				if d := doc(); d["trust_tier"] != step.want {
					t.Fatalf("tier %q: %v, want %s", step.tier, d, step.want)
				}
			}
			if err := RunNamespace(ctx, &NamespaceOptions{Factory: f, Store: sf, Namespace: "runx", JSON: true}); err != nil {
				t.Fatal(err)
			}
			if d := doc(); d["trust_tier"] != "first_party" {
				t.Fatalf("runx: %v", d)
			}
			if err := RunNamespace(ctx, &NamespaceOptions{Factory: f, Store: sf, Namespace: "acme", Tier: "gold", JSON: true}); err == nil {
				t.Fatal("tier gold was set")
			}
			if d := doc(); d["error"].(map[string]any)["code"] != string(errcode.RegistryTierInvalid) {
				t.Fatalf("tier gold: %v", d)
			}
		})
	}
}

// A database URL carrying its password is refused before any connection.
func TestDatabasePasswordNotInURL(t *testing.T) {
	out := &bytes.Buffer{}
	f := &cli.Factory{IO: &cli.IO{Out: out, Err: &bytes.Buffer{}}}
	err := RunKey(context.Background(), &KeyOptions{Factory: f, Store: StoreFlags{Database: "postgres://runx:hunter2@127.0.0.1:1/db"}, JSON: true})
	if err == nil || !strings.Contains(out.String(), string(errcode.CredentialInEndpoint)) || strings.Contains(out.String(), "hunter2") {
		t.Fatalf("%v: %s", err, out)
	}
}
