package credential

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestSecretFilesArePrivate(t *testing.T) {
	home := t.TempDir()
	if err := SetSecret(home, "api", []byte("s3cret-value\n")); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{filepath.Join(home, "secrets"): 0o700, filepath.Join(home, "secrets", "api"): 0o600} {
		info, err := os.Stat(path)
		if err != nil || info.Mode().Perm() != want {
			t.Fatalf("%s: want mode %o, got %v %v", path, want, info.Mode().Perm(), err)
		}
	}
	v, ok, err := ReadSecret(home, "api")
	if err != nil || !ok || v != "s3cret-value" {
		t.Fatalf("want the stored value back, got %q %v %v", v, ok, err)
	}
	if _, ok, err := ReadSecret(home, "absent"); ok || err != nil {
		t.Fatalf("an absent secret is not stored and no error: %v %v", ok, err)
	}
}

func TestLooseSecretIsRefused(t *testing.T) {
	home := t.TempDir()
	if err := SetSecret(home, "api", []byte("s3cret-value")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "secrets", "api")
	os.Chmod(path, 0o644)
	_, _, err := ReadSecret(home, "api")
	if contract.CodeOf(err) != "secret_permissions_unsafe" || !strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("want secret_permissions_unsafe saying chmod 600, got %v", err)
	}
	os.Chmod(path, 0o600)
	os.Chmod(filepath.Join(home, "secrets"), 0o755)
	if _, _, err := ReadSecret(home, "api"); contract.CodeOf(err) != "secret_permissions_unsafe" {
		t.Fatalf("a world-readable secrets directory is refused, got %v", err)
	}
	r := &Resolver{HomeDir: home, LookupEnv: env(nil)}
	if _, err := r.Resolve("acme", ""); contract.CodeOf(err) != "secret_permissions_unsafe" {
		t.Fatalf("resolving through a loose directory is refused, got %v", err)
	}
}

func TestSecretRefusals(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		name, value, code string
	}{
		{"../x", "v", "secret_name_invalid"},
		{"", "v", "secret_name_invalid"},
		{"ok", "\n", "secret_empty"},
		{"ok", "a\nb", "secret_invalid"},
	} {
		if err := SetSecret(home, c.name, []byte(c.value)); string(contract.CodeOf(err)) != c.code {
			t.Errorf("SetSecret(%q): want %s, got %v", c.name, c.code, err)
		}
	}
}

// The binding's variable, then the declared variable, then the stored
// secret; nothing is credential_missing naming how to deliver it.
func TestResolveOrder(t *testing.T) {
	home := t.TempDir()
	vars := map[string]string{}
	r := &Resolver{HomeDir: home, LookupEnv: env(vars)}
	_, err := r.Resolve("acme", "ACME_TOKEN")
	if contract.CodeOf(err) != "credential_missing" || !strings.Contains(err.Error(), "export ACME_TOKEN") || !strings.Contains(err.Error(), "runx connector use acme") {
		t.Fatalf("want credential_missing naming the variable and the command, got %v", err)
	}
	if err := SetSecret(home, DefaultSecretName("acme"), []byte("from-store")); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Resolve("acme", "ACME_TOKEN"); v != "from-store" || err != nil {
		t.Fatalf("want the stored secret, got %q %v", v, err)
	}
	vars["ACME_TOKEN"] = "from-declared"
	if v, _ := r.Resolve("acme", "ACME_TOKEN"); v != "from-declared" {
		t.Fatalf("the declared variable wins over a stored secret, got %q", v)
	}
	vars["MY_ACME"] = "from-bound"
	if _, err := Use(home, env(vars), UseRequest{Connector: "acme", Variable: "ACME_TOKEN", Env: "MY_ACME"}); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Resolve("acme", "ACME_TOKEN"); v != "from-bound" {
		t.Fatalf("the bound variable wins, got %q", v)
	}
	delete(vars, "MY_ACME")
	delete(vars, "ACME_TOKEN")
	SetSecret(home, "team-acme", []byte("from-named"))
	if _, err := Use(home, env(vars), UseRequest{Connector: "acme", Secret: "team-acme"}); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Resolve("acme", "ACME_TOKEN"); v != "from-named" {
		t.Fatalf("a bound stored secret is read, got %q", v)
	}
	os.Remove(SecretPath(home, "team-acme"))
	if _, err := r.Resolve("acme", "ACME_TOKEN"); contract.CodeOf(err) != "credential_missing" || !strings.Contains(err.Error(), "runx secret set team-acme") {
		t.Fatalf("a bound secret that is gone is credential_missing naming it, got %v", err)
	}
	info, err := os.Stat(filepath.Join(home, BindingsFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("bindings file must be 0600: %v %v", info, err)
	}
	raw, _ := os.ReadFile(filepath.Join(home, BindingsFile))
	if strings.Contains(string(raw), "from-") {
		t.Fatalf("the bindings file holds a value: %s", raw)
	}
}

func TestUseRefusals(t *testing.T) {
	home := t.TempDir()
	vars := map[string]string{}
	for _, c := range []struct {
		req  UseRequest
		code errcode.Code
	}{
		{UseRequest{Connector: "Bad Name"}, "connector_name_invalid"},
		{UseRequest{Connector: "acme", Env: "A", Secret: "b"}, "credential_source_ambiguous"},
		{UseRequest{Connector: "acme", Env: "A", Piped: []byte("v")}, "credential_source_ambiguous"},
		{UseRequest{Connector: "acme", Env: "not-a-var"}, "credential_variable_invalid"},
		{UseRequest{Connector: "acme", Env: "UNSET_VAR"}, "credential_missing"},
		{UseRequest{Connector: "acme", Secret: "nothing-stored"}, "credential_missing"},
		{UseRequest{Connector: "acme", Variable: "ACME_TOKEN"}, "credential_missing"},
		{UseRequest{Connector: "acme"}, "credential_missing"},
	} {
		if _, err := Use(home, env(vars), c.req); contract.CodeOf(err) != c.code {
			t.Errorf("%+v: want %s, got %v", c.req, c.code, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, BindingsFile)); err == nil {
		t.Fatal("a refused use recorded a binding")
	}
	b, err := Use(home, env(vars), UseRequest{Connector: "acme", Piped: []byte("piped-value\n")})
	if err != nil || b.Secret != "connector-acme" {
		t.Fatalf("a piped value is stored as connector-acme: %+v %v", b, err)
	}
	if v, _, _ := ReadSecret(home, "connector-acme"); v != "piped-value" {
		t.Fatalf("stored %q", v)
	}
}

func TestTaintScrubsEveryForm(t *testing.T) {
	const secret = "tok_9fQ2xZ7Lp4RmWv8K"
	var tn Taint
	if !tn.Empty() || tn.Scrub("x "+secret) != "x "+secret {
		t.Fatal("an empty taint set scrubs nothing")
	}
	tn.Add(secret, "")
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + secret))
	for _, in := range []string{
		secret,
		base64.StdEncoding.EncodeToString([]byte(secret)),
		base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"hex " + strings.ToUpper(func() string {
			s := ""
			for _, c := range []byte(secret) {
				s += string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])
			}
			return s
		}()),
		"Authorization: Basic " + basic,
		"https://x.test/?token=" + secret + "&a=1",
	} {
		out := tn.Scrub(in)
		for _, f := range Forms(secret) {
			if len(f) >= minInnerForm && strings.Contains(out, f) {
				t.Errorf("%q -> %q still holds form %q", in, out, f)
			}
		}
		if !strings.Contains(out, Redacted) {
			t.Errorf("%q -> %q has no marker", in, out)
		}
	}
	doc, _ := json.Marshal(map[string]any{"k": "a " + secret, secret: []any{secret}})
	out := tn.ScrubJSON(doc)
	if !json.Valid(out) || strings.Contains(string(out), secret) {
		t.Fatalf("ScrubJSON: %s", out)
	}
	clean := []byte(`{"a":1}`)
	if got := tn.ScrubBytes(clean); &got[0] != &clean[0] {
		t.Fatal("clean bytes are returned as they are")
	}
}

// A value holding JSON syntax still leaves a valid document.
func TestTaintJSONWithQuotes(t *testing.T) {
	var tn Taint
	tn.Add(`a","b`)
	doc := []byte(`{"x":"a","b":"c","y":"a\",\"b"}`)
	out := tn.ScrubJSON(doc)
	if !json.Valid(out) || strings.Contains(string(out), `a\",\"b`) {
		t.Fatalf("got %s", out)
	}
}

func TestTaintError(t *testing.T) {
	var tn Taint
	tn.Add("s3cret-value")
	err := tn.Error(contract.Errorf("provider_refused", "bad token s3cret-value"))
	if contract.CodeOf(err) != "provider_refused" || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("got %v", err)
	}
	var buf strings.Builder
	w := tn.Writer(&buf)
	w.Write([]byte("log s3cret-value\n"))
	if buf.String() != "log [redacted]\n" {
		t.Fatalf("writer: %q", buf.String())
	}
}

// A value with spaces and non-ASCII characters is scrubbed in every form a
// plugin or provider might echo it in: JSON with its non-ASCII escaped (in
// either case of hex, a non-BMP rune as a surrogate pair), URL escaping
// with "+" or "%20" for a space and either case of hex, base64 and hex.
func TestTaintScrubsSpacesAndNonASCII(t *testing.T) {
	const secret = "pa ss wörd 🔑!*'()"
	var tn Taint
	tn.Add(secret)
	b := []byte(secret)
	for name, in := range map[string]string{
		"raw":                  secret,
		"json utf-8":           `"` + secret + `"`,
		"json \\u lower":       `"pa ss w\u00f6rd \ud83d\udd11!*'()"`,
		"json \\u upper":       `"pa ss w\u00F6rd \uD83D\uDD11!*'()"`,
		"query escape":         url.QueryEscape(secret),
		"path escape":          url.PathEscape(secret),
		"lower-case hex %":     strings.ToLower(url.PathEscape(secret)),
		"query lower-case hex": "q=" + strings.ToLower(url.QueryEscape(secret)),
		"every byte %20":       "pa%20ss%20w%C3%B6rd%20%F0%9F%94%91%21%2A%27%28%29",
		"every byte +":         "pa+ss+w%C3%B6rd+%F0%9F%94%91%21%2A%27%28%29",
		"encodeURIComponent":   "pa%20ss%20w%C3%B6rd%20%F0%9F%94%91!*'()",
		"form +, js reserved":  "pa+ss+w%C3%B6rd+%F0%9F%94%91!*'()",
		"base64":               base64.StdEncoding.EncodeToString(b),
		"base64url raw":        base64.RawURLEncoding.EncodeToString(b),
		"base64 inside basic":  base64.StdEncoding.EncodeToString([]byte("user:" + secret)),
		"hex":                  fmt.Sprintf("%x", b),
		"HEX":                  fmt.Sprintf("%X", b),
	} {
		if out := tn.Scrub("before " + in + " after"); !strings.Contains(out, Redacted) || strings.Contains(out, "ss") && strings.Contains(out, "rd") {
			t.Errorf("%s: %q -> %q", name, in, out)
		}
	}
	doc := []byte(`{"k":"pa ss w\u00f6rd \ud83d\udd11!*'()"}`)
	if out := tn.ScrubJSON(doc); !json.Valid(out) || !strings.Contains(string(out), Redacted) {
		t.Errorf("ScrubJSON: %s", out)
	}
}

// Exact secret-field names are found at any depth, whatever their case or
// separators; a name that only contains one, or an empty value, is not.
func TestSecretField(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want string
	}{
		{`{"id":1,"access_token":"x"}`, "/access_token"},
		{`{"data":[{"n":1},{"user":{"Client-Secret":"s"}}]}`, "/data/1/user/Client-Secret"},
		{`{"creds":{"apiKey":"k"}}`, "/creds/apiKey"},
		{`{"Credentials":{"AccessKeyId":"a"}}`, "/Credentials"},
		{`{"a/b":{"password":"p"}}`, "/a~1b/password"},
		{`{"next_page_token":"n","token_type":"bearer","tokens":3}`, ""},
		{`{"token":null,"password":""}`, ""},
		{`["token","password"]`, ""},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.doc), &v); err != nil {
			t.Fatal(err)
		}
		got, ok := SecretField(v)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("SecretField(%s) = %q, %v; want %q", tc.doc, got, ok, tc.want)
		}
	}
}
