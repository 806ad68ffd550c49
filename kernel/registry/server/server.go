package server

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/runxhq/runx/internal/seedfile"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/runxhq/runx/sdk/errcode"
)

// Config is what a server serves from.
type Config struct {
	Store store.Store
	// URL is the registry's base URL as its clients reach it; every record
	// it signs names it.
	URL string
	// Log receives the server's own failures (never a token or a body).
	Log io.Writer
	// Now is the clock records are dated by; nil is time.Now.
	Now func() time.Time
}

// Server answers the registry's HTTP API.
type Server struct {
	store store.Store
	key   ed25519.PrivateKey
	url   string
	log   io.Writer
	now   func() time.Time
	// publishes bounds the publishes decoded at once: each holds its whole
	// package in memory (up to about three times maxPublishBody).
	publishes chan struct{}
}

// concurrentPublishes is how many publishes are read at once; the others
// wait their turn (bounded by the request's own timeout).
const concurrentPublishes = 2

// New opens the registry's key (creating it on first use) and returns the
// server.
func New(ctx context.Context, cfg Config) (*Server, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, contract.Errorf(errcode.RegistryRequestInvalid, "registry URL %q is not an http(s) base URL", cfg.URL)
	}
	key, err := Key(ctx, cfg.Store)
	if err != nil {
		return nil, err
	}
	s := &Server{store: cfg.Store, key: key, url: registry.NormalizeRegistry(cfg.URL), log: cfg.Log, now: cfg.Now,
		publishes: make(chan struct{}, concurrentPublishes)}
	if s.log == nil {
		s.log = io.Discard
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Key returns the registry's signing key, creating it the first time.
func Key(ctx context.Context, st store.Store) (ed25519.PrivateKey, error) {
	return seedfile.SigningKey(ctx, st.Key)
}

// PublicKey is the registry's public key.
func (s *Server) PublicKey() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// URL is the base URL the server signs records for.
func (s *Server) URL() string { return s.url }

func (s *Server) logf(format string, args ...any) { fmt.Fprintf(s.log, format+"\n", args...) }

// Handler routes the API. Anything else is a typed 404.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/keys", s.keys)
	mux.HandleFunc("GET /v1/whoami", s.whoami)
	mux.HandleFunc("GET /v1/search", s.search)
	mux.HandleFunc("GET /v1/skills/{publisher}/{name}", s.skill)
	mux.HandleFunc("GET /v1/skills/{publisher}/{name}/versions/{version}/{part}", s.skillVersion)
	mux.HandleFunc("GET /v1/connectors/{path...}", s.connector)
	mux.HandleFunc("POST /v1/publish", s.publish)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, refuse(http.StatusNotFound, errcode.RegistryNotFound, "%s %s is not an endpoint of this registry", r.Method, r.URL.Path))
	})
	return mux
}

// HTTPServer is an http.Server for h with the timeouts and header bound a
// server facing the network needs: a slow or silent client is cut off,
// while a publish of the largest package still has time to arrive.
func HTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}
