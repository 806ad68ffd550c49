package testserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Provider is a loopback HTTP provider API with the write semantics hosted
// APIs give an idempotency key (Stripe's, for one): a POST names its key in
// the Idempotency-Key header; the first request under a key commits and
// its answer is kept; a repeat with the same body replays that answer
// (Idempotent-Replayed: true) and commits nothing; a repeat while the
// first is still in flight is 409; a different body under a used key is
// 422. Messages can be read back one by one, which is how a connector
// confirms a write before it reports success.
//
//	POST /v1/messages        {to, text} -> 201 {id, to, text, status}
//	GET  /v1/messages/{id}   -> 200 the message, or 404
//	GET  /v1/messages        -> 200 {messages: [...]}
//
// A recipient ending in "@refused.invalid" is refused with 400, as a
// provider refuses a request it will never accept.
type Provider struct {
	URL string

	mu       sync.Mutex
	keys     map[string]*keyed
	messages []message
	requests map[string]int
	// hold is closed by Release; holding is closed once a POST waits on
	// it. A POST takes them both, so the next one is not held.
	hold    chan struct{}
	holding chan struct{}
	gates   []chan struct{}
	// token, when set, is the bearer token every request must present;
	// any other is answered 401 and counted as unauthorized.
	token        string
	unauthorized int
}

type keyed struct {
	bodyHash string
	done     bool
	status   int
	answer   []byte
}

type message struct {
	ID     string `json:"id"`
	To     string `json:"to"`
	Text   string `json:"text"`
	Status string `json:"status"`
}

// StartProvider serves a fresh provider on 127.0.0.1 until the test ends.
func StartProvider(t testing.TB) *Provider {
	t.Helper()
	p := &Provider{keys: map[string]*keyed{}, requests: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(func() {
		p.Release()
		srv.Close()
	})
	p.URL = srv.URL
	return p
}

// RequireBearer makes every request present "Bearer <token>": any other
// is answered 401 and does nothing.
func (p *Provider) RequireBearer(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.token = token
}

// Unauthorized is how many requests presented no valid token.
func (p *Provider) Unauthorized() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unauthorized
}

// Hold makes the next POST wait, after its key is claimed and before it
// commits, until Release; the returned channel is closed once it waits,
// so a test knows a request is in flight without sleeping.
func (p *Provider) Hold() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hold, p.holding = make(chan struct{}), make(chan struct{})
	p.gates = append(p.gates, p.hold)
	return p.holding
}

// Release lets a held POST go on.
func (p *Provider) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range p.gates {
		close(g)
	}
	p.gates, p.hold = nil, nil
}

// Requests is how many requests the provider received as "METHOD /path",
// with any message id in the path written {id}.
func (p *Provider) Requests(route string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[route]
}

// Messages is every message the provider committed, in order.
func (p *Provider) Messages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.messages))
	for i, m := range p.messages {
		out[i] = m.To + ": " + m.Text
	}
	return out
}

func (p *Provider) serve(w http.ResponseWriter, r *http.Request) {
	route := r.Method + " " + r.URL.Path
	if id, ok := strings.CutPrefix(r.URL.Path, "/v1/messages/"); ok && id != "" {
		route = r.Method + " /v1/messages/{id}"
	}
	p.mu.Lock()
	p.requests[route]++
	denied := p.token != "" && r.Header.Get("Authorization") != "Bearer "+p.token
	if denied {
		p.unauthorized++
	}
	p.mu.Unlock()
	if denied {
		answer(w, http.StatusUnauthorized, []byte(`{"error":"unauthorized"}`))
		return
	}
	switch route {
	case "POST /v1/messages":
		p.create(w, r)
	case "GET /v1/messages/{id}":
		p.get(w, strings.TrimPrefix(r.URL.Path, "/v1/messages/"))
	case "GET /v1/messages":
		p.mu.Lock()
		raw, _ := json.Marshal(map[string]any{"messages": append([]message{}, p.messages...)})
		p.mu.Unlock()
		answer(w, http.StatusOK, raw)
	default:
		answer(w, http.StatusNotFound, []byte(`{"error":"not_found"}`))
	}
}

func (p *Provider) create(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var in struct{ To, Text string }
	if err != nil || json.Unmarshal(body, &in) != nil || in.To == "" {
		answer(w, http.StatusBadRequest, []byte(`{"error":"invalid_request"}`))
		return
	}
	if key == "" {
		answer(w, http.StatusBadRequest, []byte(`{"error":"idempotency_key_required"}`))
		return
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	p.mu.Lock()
	if k, ok := p.keys[key]; ok {
		p.mu.Unlock()
		switch {
		case k.bodyHash != hash:
			answer(w, http.StatusUnprocessableEntity, []byte(`{"error":"idempotency_key_reused","message":"another request body was sent under this key"}`))
		case !k.done:
			answer(w, http.StatusConflict, []byte(`{"error":"request_in_flight","message":"a request under this key is still being processed"}`))
		default:
			w.Header().Set("Idempotent-Replayed", "true")
			answer(w, k.status, k.answer)
		}
		return
	}
	k := &keyed{bodyHash: hash}
	p.keys[key] = k
	hold, holding := p.hold, p.holding
	p.hold, p.holding = nil, nil
	p.mu.Unlock()
	if hold != nil {
		close(holding)
		<-hold
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if strings.HasSuffix(in.To, "@refused.invalid") {
		k.done, k.status, k.answer = true, http.StatusBadRequest, []byte(`{"error":"recipient_refused"}`)
	} else {
		m := message{ID: fmt.Sprintf("msg_%d", len(p.messages)+1), To: in.To, Text: in.Text, Status: "sent"}
		p.messages = append(p.messages, m)
		raw, _ := json.Marshal(m)
		k.done, k.status, k.answer = true, http.StatusCreated, raw
	}
	answer(w, k.status, k.answer)
}

func (p *Provider) get(w http.ResponseWriter, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.messages {
		if m.ID == id {
			raw, _ := json.Marshal(m)
			answer(w, http.StatusOK, raw)
			return
		}
	}
	answer(w, http.StatusNotFound, []byte(`{"error":"not_found"}`))
}

func answer(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
