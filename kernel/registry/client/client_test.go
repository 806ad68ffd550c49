package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url, base string
		code      errcode.Code
	}{
		{url: "https://reg.example", base: "https://reg.example"},
		{url: "https://reg.example/base/", base: "https://reg.example/base"},
		{url: "http://127.0.0.1:8080", base: "http://127.0.0.1:8080"},
		{url: "http://localhost:1/", base: "http://localhost:1"},
		{url: "http://[::1]:9", base: "http://[::1]:9"},
		{url: "http://reg.example", code: errcode.RegistryInsecureURL},
		{url: "http://10.0.0.1:80", code: errcode.RegistryInsecureURL},
		{url: "http://127.0.0.1.example", code: errcode.RegistryInsecureURL},
		{url: "https://user:pw@reg.example", code: errcode.RegistryURLInvalid},
		{url: "https://reg.example/?q=1", code: errcode.RegistryURLInvalid},
		{url: "https://reg.example/#x", code: errcode.RegistryURLInvalid},
		{url: "ftp://reg.example", code: errcode.RegistryURLInvalid},
		{url: "reg.example", code: errcode.RegistryURLInvalid},
		{url: "", code: errcode.RegistryURLInvalid},
	} {
		base, err := CheckURL(tc.url)
		if tc.code == "" {
			if err != nil || base != tc.base {
				t.Errorf("%q: %q, %v; want %q", tc.url, base, err, tc.base)
			}
			continue
		}
		if contract.CodeOf(err) != tc.code {
			t.Errorf("%q: %v; want %s", tc.url, err, tc.code)
		}
	}
}

func TestResolveURL(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	if _, err := ResolveURL("", env(nil)); contract.CodeOf(err) != errcode.RegistryUnavailable {
		t.Fatalf("no registry named: %v; want registry_unavailable", err)
	}
	if u, _ := ResolveURL("", env(map[string]string{EnvURL: "https://a.example"})); u != "https://a.example" {
		t.Fatalf("the environment's registry: %q", u)
	}
	if u, _ := ResolveURL("https://b.example", env(map[string]string{EnvURL: "https://a.example"})); u != "https://b.example" {
		t.Fatalf("--registry wins: %q", u)
	}
}

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Ref
		ok   bool
	}{
		{in: "acme/weather", want: Ref{Name: "acme/weather"}, ok: true},
		{in: "acme/weather@1.0.0", want: Ref{Name: "acme/weather", Version: "1.0.0"}, ok: true},
		{in: "calendar@sha-0123456789ab", want: Ref{Kind: KindConnector, Name: "calendar", Version: "sha-0123456789ab"}, ok: true},
		{in: "acme/weather@"},
		{in: "acme/../weather"},
		{in: "../weather"},
		{in: "acme/weather/x"},
		{in: "/weather"},
		{in: "acme/weather@1.0.0/../x"},
		{in: "acme/we ather"},
	} {
		got, err := ParseRef(tc.in)
		if !tc.ok {
			if contract.CodeOf(err) != errcode.RegistryRefInvalid {
				t.Errorf("%q: %+v, %v; want registry_ref_invalid", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestChooseNewest(t *testing.T) {
	vs := []VersionInfo{{Version: "3.0.0", PackageFormat: 2}, {Version: "2.0.0", PackageFormat: 1}}
	v, unread, err := ChooseNewest("acme/x", vs, 1)
	if err != nil || v.Version != "2.0.0" || unread == nil || unread.Version != "3.0.0" {
		t.Fatalf("%+v %+v %v", v, unread, err)
	}
	if v, unread, _ := ChooseNewest("acme/x", vs, 2); v.Version != "3.0.0" || unread != nil {
		t.Fatalf("a runx reading format 2: %+v %+v", v, unread)
	}
	_, _, err = ChooseNewest("acme/x", vs[:1], 1)
	if contract.CodeOf(err) != errcode.RegistryVersionUnreadable {
		t.Fatalf("only a newer format: %v", err)
	}
	_, _, err = ChooseNewest("acme/x", nil, 1)
	if contract.CodeOf(err) != errcode.RegistryVersionNotFound {
		t.Fatalf("no version: %v", err)
	}
}

// The registry's order is not trusted: versions are sorted by semver.
func TestVersionsSortedBySemver(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"publisher":"acme","name":"x","trust_tier":"community","versions":[{"version":"1.2.0","package_format":1},{"version":"1.10.0-rc.1","package_format":1},{"version":"1.10.0","package_format":1},{"version":"1.9.9","package_format":1}]}`))
	}))
	defer srv.Close()
	c, _ := New(srv.URL, Options{})
	vs, err := c.Versions(context.Background(), KindSkill, Ref{Name: "acme/x"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs.Versions {
		got = append(got, v.Version)
	}
	if strings.Join(got, " ") != "1.10.0 1.10.0-rc.1 1.9.9 1.2.0" {
		t.Fatalf("order %v", got)
	}
}

func TestHostileAnswers(t *testing.T) {
	const token = "runxreg_s3cret"
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/search", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://evil.example/v1/search", http.StatusFound)
	})
	mux.HandleFunc("/v1/keys", func(w http.ResponseWriter, r *http.Request) {
		<-release // never answers in time
	})
	mux.HandleFunc("/v1/whoami", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"error":{"code":"registry_namespace_not_owned","message":"token ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + ` \u001b[31mowns nothing"}}`))
	})
	mux.HandleFunc("/v1/skills/acme/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "99999999")
		w.WriteHeader(200)
	})
	mux.HandleFunc("/v1/skills/acme/code", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(`{"error":{"code":"Not A Code","message":"x"}}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(release)
	c, err := New(srv.URL, Options{Token: token, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	_, err = c.Search(ctx, "x", 5)
	if contract.CodeOf(err) != errcode.RegistryResponseInvalid || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("a redirect: %v", err)
	}
	_, err = c.Keys(ctx)
	if contract.CodeOf(err) != errcode.RegistryUnreachable {
		t.Fatalf("a registry that never answers: %v", err)
	}
	_, err = c.WhoAmI(ctx)
	if contract.CodeOf(err) != errcode.Code("registry_namespace_not_owned") {
		t.Fatalf("the registry's own code: %v", err)
	}
	if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "\x1b") {
		t.Fatalf("the message holds the token or a control character: %q", err.Error())
	}
	_, err = c.Versions(ctx, KindSkill, Ref{Name: "acme/big"})
	if contract.CodeOf(err) != errcode.RegistryResponseTooLarge {
		t.Fatalf("an announced oversized answer: %v", err)
	}
	_, err = c.Versions(ctx, KindSkill, Ref{Name: "acme/code"})
	if contract.CodeOf(err) != errcode.RegistryRefused {
		t.Fatalf("a code that is not a registry code: %v", err)
	}
}

// The token goes only to publish and whoami, and only to the registry it
// was stored for.
func TestTokenSecretName(t *testing.T) {
	a, b := TokenSecretName("https://reg.example"), TokenSecretName("http://reg.example")
	if a == b || !strings.HasPrefix(a, "registry-publish-") {
		t.Fatalf("names %q %q", a, b)
	}
	long := TokenSecretName("https://reg.example/" + strings.Repeat("x", 300))
	if len(long) > 128 {
		t.Fatalf("a secret name is at most 128: %d", len(long))
	}
}
