package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// forge is a local provider speaking the wire format a real one does: JSON
// over HTTP, a bearer token, and writes deduplicated under an
// Idempotency-Key (409 while a key is in flight, 422 for a changed body
// under a used key, the first answer again for a repeat). Its posts can be
// read back by id or by the key that created them.
type forge struct {
	t     testing.TB
	srv   *httptest.Server
	token string

	mu     sync.Mutex
	posts  map[string]map[string]any // by id
	byKey  map[string]string         // idempotency key -> post id
	bodies map[string]string         // idempotency key -> body
	writes int                       // POSTs that reached the handler
	keys   []string                  // the key of each POST

	// hold, when set, makes the next POST commit its post and then block
	// until release is closed (the answer is then never read).
	hold    chan struct{} // closed when a held POST has committed
	release chan struct{}
	// hangup makes the next POST drop its connection without doing anything.
	hangup bool
	// leakOn names the methods (GET, POST) whose answers also carry a
	// provider secret runx never delivered, under access_token.
	leakOn map[string]bool
}

// providerSecret is what a leaking forge answers under access_token.
const providerSecret = "provider-minted-secret-5e1d"

func newForge(t testing.TB) *forge {
	f := &forge{t: t, token: "forge-token-7f3a", posts: map[string]map[string]any{}, byKey: map[string]string{}, bodies: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.mu.Lock()
		if f.release != nil {
			select {
			case <-f.release:
			default:
				close(f.release)
			}
		}
		f.mu.Unlock()
		f.srv.Close()
	})
	return f
}

func (f *forge) writeCount() (int, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes, append([]string(nil), f.keys...)
}

func (f *forge) answer(w http.ResponseWriter, r *http.Request, status int, p map[string]any) {
	f.mu.Lock()
	leak := f.leakOn[r.Method]
	f.mu.Unlock()
	if leak {
		q := map[string]any{"access_token": providerSecret}
		for k, v := range p {
			q[k] = v
		}
		p = q
	}
	answer(w, status, p)
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *forge) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		answer(w, 401, map[string]any{"error": "bad token"})
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/") // boards/<b>/posts[/<id>]
	if len(parts) < 3 || parts[0] != "boards" || parts[2] != "posts" {
		answer(w, 404, map[string]any{"error": "no such route"})
		return
	}
	board := parts[1]
	switch r.Method {
	case http.MethodGet:
		f.mu.Lock()
		defer f.mu.Unlock()
		id := ""
		if len(parts) == 4 {
			id = parts[3]
		} else {
			id = f.byKey[r.URL.Query().Get("idempotency_key")]
		}
		p, ok := f.posts[id]
		if !ok || p["board"] != board {
			answer(w, 404, map[string]any{"error": "no such post"})
			return
		}
		if f.leakOn[r.Method] {
			p = map[string]any{"access_token": providerSecret, "id": p["id"], "board": p["board"], "title": p["title"], "key": p["key"]}
		}
		answer(w, 200, p)
	case http.MethodPost:
		raw, _ := io.ReadAll(r.Body)
		key := r.Header.Get("Idempotency-Key")
		f.mu.Lock()
		f.writes++
		f.keys = append(f.keys, key)
		if f.hangup {
			f.hangup = false
			f.mu.Unlock()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		if key == "" {
			f.mu.Unlock()
			answer(w, 400, map[string]any{"error": "Idempotency-Key required"})
			return
		}
		if prev, used := f.bodies[key]; used {
			id := f.byKey[key]
			f.mu.Unlock()
			if prev != string(raw) {
				answer(w, 422, map[string]any{"error": "another body under this key"})
				return
			}
			if id == "" {
				answer(w, 409, map[string]any{"error": "in flight"})
				return
			}
			f.mu.Lock()
			p := f.posts[id]
			f.mu.Unlock()
			f.answer(w, r, 201, p)
			return
		}
		var in map[string]any
		json.Unmarshal(raw, &in)
		id := "p" + string(rune('0'+len(f.posts)+1))
		p := map[string]any{"id": id, "board": board, "title": in["title"], "key": key}
		f.bodies[key] = string(raw)
		f.posts[id], f.byKey[key] = p, id
		hold, release := f.hold, f.release
		f.hold = nil
		f.mu.Unlock()
		if hold != nil {
			close(hold)
			<-release
			return
		}
		f.answer(w, r, 201, p)
	default:
		answer(w, 405, map[string]any{"error": "method"})
	}
}

// forgeConnector is a connector.yaml for the forge at base.
func forgeConnector(base, approval, price string) string {
	return `id: forge
version: 1.0.0
base_url: ` + base + `
credential: { variable: FORGE_TOKEN, header: Authorization, scheme: Bearer }
operations:
  post.create:
    summary: Create one post on a board.
    verb: write
    scopes: ["forge:posts:write"]
    target: boards/{board}
    approval: ` + approval + `
    cost: { usd_micro: ` + price + `, per: request, source: docs }
    request:
      method: POST
      path: /boards/{board}/posts
      body: { title: $input.title }
    idempotency: { header: Idempotency-Key, window_seconds: 86400 }
    readbacks:
      - operation: post.find
        inputs: { board: $input.board, key: $key }
        confirms: { title: $input.title, key: $key }
    inputs:
      board: { type: string, required: true }
      title: { type: string, required: true }
    outputs:
      id: { type: string }
      title: { type: string }
  post.find:
    verb: read
    request: { method: GET, path: "/boards/{board}/posts", query: { idempotency_key: $input.key } }
    inputs:
      board: { type: string, required: true }
      key: { type: string, required: true }
    outputs:
      id: { type: string }
      title: { type: string }
      key: { type: string }
  post.get:
    verb: read
    request: { method: GET, path: "/boards/{board}/posts/{id}" }
    inputs:
      board: { type: string, required: true }
      id: { type: string, required: true }
    outputs:
      title: { type: string }
`
}

const forgeSkill = `minimum_runx: 0.1.0
methods:
  publish:
    description: Publish one post.
    inputs:
      board: { type: string, required: true }
      title: { type: string, required: true }
      key: { type: string, required: true }
    steps:
      - id: publish
        operation: forge/post.create
        idempotency_key: $input.key
        inputs: { board: $input.board, title: $input.title }
  read:
    description: Read one post.
    inputs:
      board: { type: string, required: true }
      id: { type: string, required: true }
    steps:
      - id: read
        operation: forge/post.get
        inputs: { board: $input.board, id: $input.id }
`

// forgeWorkspace is a workspace with the forge skill and its connector.
func forgeWorkspace(t *testing.T, f *forge, approval, price string) *workspace {
	files := skillFiles("forge", forgeSkill)
	files["forge/connectors/forge/connector.yaml"] = forgeConnector(f.srv.URL, approval, price)
	w := newWorkspace(t, files)
	w.env = append(w.env, "FORGE_TOKEN="+f.token)
	return w
}
