package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/runxhq/runx/kernel/notary/server/store"
	"github.com/runxhq/runx/sdk/errcode"
)

// A notarize token is TokenPrefix, a public id (16 hex) and a secret (64
// hex). The id finds the token's row; the store keeps only SHA-256 of the
// whole token, compared in constant time.
const (
	TokenPrefix  = "runxnot_"
	tokenIDHex   = 16
	tokenBodyHex = tokenIDHex + 64
)

// CreateToken makes a token issued to name, stores its hash and returns
// it: the only time the token exists outside its holder.
func CreateToken(ctx context.Context, st store.Store, name string) (string, error) {
	raw := make([]byte, tokenBodyHex/2)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := TokenPrefix + hex.EncodeToString(raw)
	sum := sha256.Sum256([]byte(token))
	if err := st.CreateToken(ctx, store.Token{ID: token[len(TokenPrefix):][:tokenIDHex], Hash: sum[:], Name: name}); err != nil {
		return "", err
	}
	return token, nil
}

// authenticate returns the request's token as the store holds it.
func (s *Server) authenticate(r *http.Request) (store.Token, error) {
	unknown := refuse(http.StatusUnauthorized, errcode.NotaryTokenInvalid,
		"this needs Authorization: Bearer with a token this notary issued (runx notary token create)")
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	body, prefixed := strings.CutPrefix(token, TokenPrefix)
	if !ok || !prefixed || len(body) != tokenBodyHex {
		return store.Token{}, unknown
	}
	t, err := s.store.Token(r.Context(), body[:tokenIDHex])
	if errors.Is(err, store.ErrNotFound) {
		return store.Token{}, unknown
	}
	if err != nil {
		return store.Token{}, err
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], t.Hash) != 1 {
		return store.Token{}, unknown
	}
	return t, nil
}

// limiters holds a token bucket per token id. It forgets every bucket when
// it holds maxLimiters, so the map is bounded however many tokens call; a
// forgotten bucket starts full again, which errs on letting a caller in.
type limiters struct {
	mu    sync.Mutex
	every rate.Limit
	burst int
	by    map[string]*rate.Limiter
}

const maxLimiters = 10000

func newLimiters(perMinute, burst int) *limiters {
	return &limiters{every: rate.Limit(float64(perMinute) / 60), burst: burst, by: map[string]*rate.Limiter{}}
}

// allow reports whether id may send now, and when not, how long to wait.
func (l *limiters) allow(id string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.by[id]
	if !ok {
		if len(l.by) >= maxLimiters {
			clear(l.by)
		}
		lim = rate.NewLimiter(l.every, l.burst)
		l.by[id] = lim
	}
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// limitReads holds a public read to its client address's bucket. The
// address is the connection's: a proxy in front of the notary is one
// client unless it limits on its own.
func (s *Server) limitReads(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		if ok, wait := s.reads.allow(host, s.now()); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
			s.fail(w, r, refuse(http.StatusTooManyRequests, errcode.NotaryRateLimited, "this address sent more reads than the notary allows; send again in %s", wait.Round(time.Second)))
			return
		}
		h(w, r)
	}
}
