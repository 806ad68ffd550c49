package http

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// call builds one connector.request call against base.
func call(t testing.TB, base, verb, method, path string, body any, inputs map[string]any) *plugin.Call {
	t.Helper()
	b := plugin.ConnectorBinding{Connector: "forge", Version: "1", Operation: "post.create", Verb: verb, BaseURL: base,
		Credential: &plugin.ConnectorCredential{Variable: "FORGE_TOKEN", Header: "Authorization", Scheme: "Bearer"},
		Request:    plugin.RequestTemplate{Method: method, Path: path, Query: map[string]string{"board": "$input.board"}, Body: body}}
	raw, _ := json.Marshal(b)
	in, _ := json.Marshal(inputs)
	return &plugin.Call{Capability: CapabilityRequest, Input: in, Context: plugin.Context{
		Binding: raw, Credentials: map[string]string{"FORGE_TOKEN": "s3cret-token"}, IdempotencyKey: "pk-1",
	}}
}

// The request is rendered from the manifest: path parameters escaped into
// one segment (caller input cannot climb out of the base path or change
// the host), the query from inputs, the JSON body, the credential header.
func TestRendersAndSendsOneRequest(t *testing.T) {
	var got *http.Request
	var gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		raw, _ := io.ReadAll(r.Body)
		gotBody = string(raw)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write([]byte(`{"id":"p1"}`))
	}))
	defer srv.Close()
	c := call(t, srv.URL+"/api", "write", "POST", "/posts/{id}", map[string]any{"title": "$input.title", "n": 1}, map[string]any{"id": "../../admin?x=1", "title": "hi", "board": "b 1"})
	res := New().Invoke(context.Background(), c)
	if res.Status != plugin.StatusOK {
		t.Fatalf("got %+v", res)
	}
	if got.URL.EscapedPath() != "/api/posts/..%2F..%2Fadmin%3Fx=1" || got.URL.RawQuery != "board=b+1" {
		t.Fatalf("path %q query %q", got.URL.EscapedPath(), got.URL.RawQuery)
	}
	if got.Header.Get("Authorization") != "Bearer s3cret-token" || got.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", got.Header)
	}
	if gotBody != `{"n":1,"title":"hi"}` {
		t.Fatalf("body %q", gotBody)
	}
	var out plugin.ConnectorResponse
	json.Unmarshal(res.Output, &out)
	if out.Status != 201 || out.Body.(map[string]any)["id"] != "p1" {
		t.Fatalf("output %s", res.Output)
	}
}

// A provider's refusal reaches the caller as its status and its own
// message, never its raw body; a credential never appears.
func TestProviderRefusal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(422)
		w.Write([]byte(`{"error":{"message":"title taken"},"debug":"RAW-INTERNALS"}`))
	}))
	defer srv.Close()
	res := New().Invoke(context.Background(), call(t, srv.URL, "write", "POST", "/posts", nil, nil))
	if res.Status != plugin.StatusRefused || res.Code != errcode.ProviderRefused {
		t.Fatalf("got %+v", res)
	}
	if !strings.Contains(res.Message, "422") || !strings.Contains(res.Message, "title taken") || strings.Contains(res.Message, "RAW-INTERNALS") || strings.Contains(res.Message, "s3cret") {
		t.Fatalf("message %q", res.Message)
	}
}

// A 404 is its own typed refusal, provider_not_found: a readback reads
// absence from the code, never from the message's wording.
func TestNotFoundIsTyped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"no such post"}`))
	}))
	defer srv.Close()
	res := New().Invoke(context.Background(), call(t, srv.URL, "read", "GET", "/posts/9", nil, nil))
	if res.Status != plugin.StatusRefused || res.Code != errcode.ProviderNotFound {
		t.Fatalf("got %+v", res)
	}
}

// A write whose request left with no answer read is ambiguous_commit; a
// read that gets none is provider_unavailable; a provider that cannot be
// reached at all is provider_unavailable, write or not.
func TestTypedFailures(t *testing.T) {
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	defer hangup.Close()
	if res := New().Invoke(context.Background(), call(t, hangup.URL, "write", "POST", "/posts", map[string]any{"a": 1}, nil)); res.Code != errcode.AmbiguousCommit || res.Status != plugin.StatusFailed {
		t.Fatalf("write, hung up: %+v", res)
	}
	if res := New().Invoke(context.Background(), call(t, hangup.URL, "read", "GET", "/posts", nil, nil)); res.Code != errcode.ProviderUnavailable {
		t.Fatalf("read, hung up: %+v", res)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String()
	l.Close()
	if res := New().Invoke(context.Background(), call(t, dead, "write", "POST", "/posts", map[string]any{"a": 1}, nil)); res.Code != errcode.ProviderUnavailable {
		t.Fatalf("write, unreachable: %+v", res)
	}
	fivexx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer fivexx.Close()
	if res := New().Invoke(context.Background(), call(t, fivexx.URL, "write", "POST", "/posts", map[string]any{"a": 1}, nil)); res.Code != errcode.AmbiguousCommit {
		t.Fatalf("write, 503: %+v", res)
	}
}

// Redirects are followed only within the declared origin.
func TestRedirectsStayInOrigin(t *testing.T) {
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a redirect reached another origin: %s", r.Header.Get("Authorization"))
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/here":
			http.Redirect(w, r, "/there", http.StatusFound)
		case "/there":
			w.Write([]byte(`{"ok":true}`))
		default:
			http.Redirect(w, r, elsewhere.URL+"/steal", http.StatusFound)
		}
	}))
	defer srv.Close()
	if res := New().Invoke(context.Background(), call(t, srv.URL, "read", "GET", "/here", nil, nil)); res.Status != plugin.StatusOK {
		t.Fatalf("same-origin redirect: %+v", res)
	}
	if res := New().Invoke(context.Background(), call(t, srv.URL, "read", "GET", "/away", nil, nil)); res.Code != errcode.ProviderUnavailable || !strings.Contains(res.Message, "out of its origin") {
		t.Fatalf("cross-origin redirect: %+v", res)
	}
}

// Plain http off loopback is refused before anything is sent; so is a
// body over the request ceiling and a missing credential.
func TestRefusedBeforeSending(t *testing.T) {
	if res := New().Invoke(context.Background(), call(t, "http://forge.runx.invalid", "read", "GET", "/x", nil, nil)); res.Code != errcode.ConnectorRequestInvalid || !strings.Contains(res.Message, "plain http") {
		t.Fatalf("http off loopback: %+v", res)
	}
	big := call(t, "https://forge.runx.invalid", "write", "POST", "/x", map[string]any{"t": "$input.t"}, map[string]any{"t": strings.Repeat("x", MaxRequestBytes)})
	if res := New().Invoke(context.Background(), big); res.Code != "connector_request_too_large" {
		t.Fatalf("big body: %+v", res)
	}
	c := call(t, "https://forge.runx.invalid", "read", "GET", "/x", nil, nil)
	c.Context.Credentials = nil
	if res := New().Invoke(context.Background(), c); res.Code != "credential_missing" {
		t.Fatalf("no credential: %+v", res)
	}
	if res := New().Invoke(context.Background(), &plugin.Call{Capability: CapabilityRequest, Input: []byte(`{}`)}); res.Code != errcode.ConnectorRequestInvalid {
		t.Fatalf("no binding: %+v", res)
	}
}

// An oversized answer is typed, never read whole.
func TestResponseBound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", MaxResponseBytes+10)))
	}))
	defer srv.Close()
	if res := New().Invoke(context.Background(), call(t, srv.URL, "read", "GET", "/x", nil, nil)); res.Code != errcode.ProviderUnavailable || !strings.Contains(res.Message, "ceiling") {
		t.Fatalf("got %+v", res)
	}
}

// Under replay the transport answers only from the declared exchanges and
// never dials: the base URL here does not resolve.
func TestReplayAnswersOnlyFromExchanges(t *testing.T) {
	c := call(t, "https://forge.runx.invalid", "write", "POST", "/posts", map[string]any{"title": "$input.title"}, map[string]any{"title": "hi"})
	var b plugin.ConnectorBinding
	json.Unmarshal(c.Context.Binding, &b)
	b.Replay = true
	b.Exchanges = []plugin.HTTPExchange{
		{Index: 0, Request: plugin.HTTPRequest{Method: "POST", URL: "https://forge.runx.invalid/posts"}, Response: plugin.HTTPResponse{Status: 500}},
		{Index: 3, Request: plugin.HTTPRequest{Method: "POST", URL: "https://forge.runx.invalid/posts", Body: json.RawMessage(`{"title":"hi"}`)}, Response: plugin.HTTPResponse{Status: 201, Body: `{"id":"p9"}`}},
	}
	c.Context.Binding, _ = json.Marshal(b)
	res := New().Invoke(context.Background(), c)
	if res.Status != plugin.StatusOK || !strings.Contains(string(res.Output), "p9") || !strings.Contains(string(res.Evidence), `"exchange":3`) {
		t.Fatalf("got %+v %s", res, res.Evidence)
	}
	b.Exchanges = b.Exchanges[:1]
	c.Context.Binding, _ = json.Marshal(b)
	if res := New().Invoke(context.Background(), c); res.Code != errcode.HTTPExchangeUnmatched || res.Status != plugin.StatusRefused {
		t.Fatalf("unmatched: %+v", res)
	}
}
