package server

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/runxhq/runx/internal/seedfile"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/kernel/notary/server/store"
	"github.com/runxhq/runx/sdk/errcode"
)

// Config is what a server serves from.
type Config struct {
	Store store.Store
	// URL is the notary's base URL as its clients reach it; every record's
	// link names it.
	URL string
	// Log receives the server's own failures (never a token or a body).
	Log io.Writer
	// Now is the clock statements are dated by; nil is time.Now.
	Now func() time.Time
	// PerMinute and Burst bound each token's notarizes: a bucket of Burst
	// refilled at PerMinute. Zero is DefaultPerMinute and DefaultBurst.
	PerMinute, Burst int
	// ReadsPerMinute and ReadBurst bound the public reads (records,
	// checkpoints, proofs, keys) of each client address the same way.
	// Zero is DefaultReadsPerMinute and DefaultReadBurst.
	ReadsPerMinute, ReadBurst int
}

// The default rate per token: a busy CI's receipts, not a flood.
const (
	DefaultPerMinute = 600
	DefaultBurst     = 100
	// A verifier reads a record and at most one proof; a mirror reads
	// more, but not a flood from one address.
	DefaultReadsPerMinute = 6000
	DefaultReadBurst      = 600
)

// Server answers the notary's HTTP API.
type Server struct {
	store  store.Store
	key    ed25519.PrivateKey
	signer *notary.CheckpointSigner
	url    string
	log    io.Writer
	now    func() time.Time
	limits *limiters
	reads  *limiters
	// notarizes bounds the receipts checked at once: each holds its
	// receipt in memory (up to about three times maxNotarizeBody).
	notarizes chan struct{}
}

const concurrentNotarizes = 4

// New opens the notary's key (creating it on first use) and returns the
// server.
func New(ctx context.Context, cfg Config) (*Server, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, contract.Errorf(errcode.NotaryURLInvalid, "notary URL %q is not an http(s) base URL", cfg.URL)
	}
	key, err := Key(ctx, cfg.Store)
	if err != nil {
		return nil, err
	}
	signer, err := notary.NewCheckpointSigner(key)
	if err != nil {
		return nil, err
	}
	per, burst := cfg.PerMinute, cfg.Burst
	if per <= 0 {
		per = DefaultPerMinute
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	readPer, readBurst := cfg.ReadsPerMinute, cfg.ReadBurst
	if readPer <= 0 {
		readPer = DefaultReadsPerMinute
	}
	if readBurst <= 0 {
		readBurst = DefaultReadBurst
	}
	s := &Server{store: cfg.Store, key: key, signer: signer, url: strings.TrimRight(cfg.URL, "/"), log: cfg.Log, now: cfg.Now,
		limits: newLimiters(per, burst), reads: newLimiters(readPer, readBurst), notarizes: make(chan struct{}, concurrentNotarizes)}
	if s.log == nil {
		s.log = io.Discard
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Key returns the notary's signing key, creating it the first time.
func Key(ctx context.Context, st store.Store) (ed25519.PrivateKey, error) {
	return seedfile.SigningKey(ctx, st.Key)
}

// PublicKey is the notary's public key.
func (s *Server) PublicKey() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// URL is the base URL the server links records under.
func (s *Server) URL() string { return s.url }

func (s *Server) logf(format string, args ...any) { fmt.Fprintf(s.log, format+"\n", args...) }

// Handler routes the API. Anything else is a typed 404.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/receipts/notarize", s.notarize)
	mux.HandleFunc("GET /r/{hash}", s.limitReads(s.record))
	mux.HandleFunc("GET /v1/log/checkpoint", s.limitReads(s.checkpoint))
	mux.HandleFunc("GET /v1/log/consistency", s.limitReads(s.consistency))
	mux.HandleFunc("GET /v1/keys", s.limitReads(s.keys))
	mux.HandleFunc("GET /v1/whoami", s.whoami)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, refuse(http.StatusNotFound, errcode.NotaryNotFound, "%s %s is not an endpoint of this notary", r.Method, r.URL.Path))
	})
	return mux
}

// HTTPServer is an http.Server for h with the timeouts and header bound a
// server facing the network needs.
func HTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}
