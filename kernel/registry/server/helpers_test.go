package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/runxhq/runx/sdk/errcode"
)

// skillFiles is a small valid skill of publisher-independent name and the
// version given.
func skillFiles(name, version, description string) map[string][]byte {
	return map[string][]byte{
		"SKILL.md": []byte("---\nname: " + name + "\ndescription: " + description + "\nversion: " + version + "\n---\n\n# " + name + "\n"),
		"run.yaml": []byte(`minimum_runx: 0.1.0
methods:
  forecast:
    description: Forecast for one place.
    steps:
      - id: say
        tool: { command: echo, args: ["hi"] }
`),
	}
}

func connectorFiles(id string) map[string][]byte {
	return map[string][]byte{"connector.yaml": []byte(`id: ` + id + `
version: 1.0.0
base_url: https://api.example.com
operations:
  list:
    summary: List events.
    verb: read
    target: events
    request:
      method: GET
      path: /v1/events
`)}
}

// registry is a real server on loopback over a real store.
type testRegistry struct {
	t   *testing.T
	srv *Server
	st  store.Store
	url string
}

func startOn(t *testing.T, st store.Store) *testRegistry {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	srv, err := New(context.Background(), Config{Store: st, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	hs := HTTPServer(srv.Handler())
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return &testRegistry{t: t, srv: srv, st: st, url: url}
}

func sqliteRegistry(t *testing.T) *testRegistry {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return startOn(t, st)
}

func postgresStore(t *testing.T, pg *testserver.Postgres) store.Store {
	t.Helper()
	st, err := store.OpenPostgres(context.Background(), store.PostgresConfig{URL: pg.URL(), Password: pg.Password})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (r *testRegistry) token(namespace string) string {
	r.t.Helper()
	tok, err := CreateToken(context.Background(), r.st, namespace)
	if err != nil {
		r.t.Fatal(err)
	}
	return tok
}

// do sends a request and decodes the JSON answer.
func (r *testRegistry) do(method, path, token string, body io.Reader) (int, map[string]any) {
	r.t.Helper()
	req, err := http.NewRequest(method, r.url+path, body)
	if err != nil {
		r.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		r.t.Fatalf("%s %s: content type %q: %s", method, path, ct, raw)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		r.t.Fatalf("%s %s: not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, doc
}

func (r *testRegistry) get(path string) (int, map[string]any) { return r.do("GET", path, "", nil) }

func publishBody(kind, publisher string, files map[string][]byte) io.Reader {
	type file struct {
		Path string `json:"path"`
		Data []byte `json:"data"`
	}
	req := struct {
		Kind      string `json:"kind"`
		Publisher string `json:"publisher"`
		Files     []file `json:"files"`
	}{Kind: kind, Publisher: publisher}
	for p, b := range files {
		req.Files = append(req.Files, file{p, b})
	}
	raw, _ := json.Marshal(req)
	return bytes.NewReader(raw)
}

func (r *testRegistry) publish(token, kind, publisher string, files map[string][]byte) (int, map[string]any) {
	return r.do("POST", "/v1/publish", token, publishBody(kind, publisher, files))
}

// wantError fails unless the answer is the typed error document with this
// status and code.
func wantError(t *testing.T, what string, status int, doc map[string]any, wantStatus int, code errcode.Code) {
	t.Helper()
	e, _ := doc["error"].(map[string]any)
	if status != wantStatus || e == nil || e["code"] != string(code) || e["message"] == "" {
		t.Fatalf("%s: %d %v, want %d %s", what, status, doc, wantStatus, code)
	}
}

func wantStatus(t *testing.T, what string, status int, doc map[string]any, want int) {
	t.Helper()
	if status != want {
		t.Fatalf("%s: %d %v, want %d", what, status, doc, want)
	}
}
