package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// recorded is one request a stand-in provider received.
type recorded struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// standIn is a local HTTP server speaking a provider's wire format: it
// records each request and answers with the next scripted response.
type standIn struct {
	t       testing.TB
	mu      sync.Mutex
	reqs    []recorded
	answers []func(w http.ResponseWriter)
	srv     *httptest.Server
}

func newStandIn(t testing.TB, answers ...func(w http.ResponseWriter)) *standIn {
	s := &standIn{t: t, answers: answers}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recorded{Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
		var a func(http.ResponseWriter)
		if len(s.answers) > 0 {
			a, s.answers = s.answers[0], s.answers[1:]
		}
		s.mu.Unlock()
		if a == nil {
			http.Error(w, `{"error":{"message":"no scripted answer left"}}`, http.StatusTeapot)
			return
		}
		a(w)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *standIn) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

// sseAnswer streams events: each item is "event\ndata" or just "data".
func sseAnswer(events ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			if name, data, ok := strings.Cut(e, "\n"); ok {
				fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
			} else {
				fmt.Fprintf(w, "data: %s\n\n", e)
			}
			w.(http.Flusher).Flush()
		}
	}
}

func jsonAnswer(status int, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}
