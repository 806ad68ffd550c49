package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

func TestCheckURL(t *testing.T) {
	for raw, want := range map[string]errcode.Code{
		"http://api.example.com":          errcode.NotaryInsecureURL,
		"http://127.0.0.1:8080":           errcode.NotaryLocalAPIRefused,
		"https://localhost":               errcode.NotaryLocalAPIRefused,
		"http://10.1.2.3":                 errcode.NotaryLocalAPIRefused,
		"https://user:pw@api.example.com": errcode.NotaryURLInvalid,
		"https://api.example.com/?x=1":    errcode.NotaryURLInvalid,
		"ftp://api.example.com":           errcode.NotaryURLInvalid,
		"api.example.com":                 errcode.NotaryURLInvalid,
	} {
		if _, err := CheckURL(raw, false); contract.CodeOf(err) != want {
			t.Errorf("%s: %v, want %s", raw, err, want)
		}
	}
	if got, err := CheckURL("https://api.example.com/", false); err != nil || got != "https://api.example.com" {
		t.Fatalf("https: %s %v", got, err)
	}
	if got, err := CheckURL("http://127.0.0.1:8080", true); err != nil || got != "http://127.0.0.1:8080" {
		t.Fatalf("loopback allowed: %s %v", got, err)
	}
}

// A notary's refusal keeps its code when it is a notary or receipt code,
// falls back on the status otherwise, and never shows the token; a
// redirect is not followed.
func TestRefusals(t *testing.T) {
	const token = "runxnot_secret"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/r/sha256:a":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"code":"signature_invalid","message":"bad ` + token + `"}}`))
		case "/r/sha256:b":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"code":"internal_error","message":"x"}}`))
		case "/r/sha256:c":
			w.WriteHeader(http.StatusNotFound)
		case "/r/sha256:d":
			http.Redirect(w, r, "http://elsewhere.example/", http.StatusFound)
		default:
			w.Write([]byte(`{}`))
		}
	}))
	defer srv.Close()
	base, err := CheckURL(srv.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	c := New(base, token)
	for hash, want := range map[string]errcode.Code{
		"sha256:a": errcode.SignatureInvalid,
		"sha256:b": errcode.NotaryUnavailable,
		"sha256:c": errcode.NotaryNotFound,
		"sha256:d": errcode.NotaryResponseInvalid,
		"sha256:e": errcode.NotaryResponseInvalid,
	} {
		_, _, err := c.Record(context.Background(), hash)
		if contract.CodeOf(err) != want || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v, want %s without the token", hash, err, want)
		}
	}
}
