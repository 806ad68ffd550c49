package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/runxhq/runx/sdk/errcode"
)

// A publish token is TokenPrefix, a public id (16 hex) and a secret (64
// hex). The id finds the token's row; the store keeps only SHA-256 of the
// whole token, compared in constant time, so neither the store nor the
// timing of a lookup gives a token away.
const (
	TokenPrefix  = "runxreg_"
	tokenIDHex   = 16
	tokenBodyHex = tokenIDHex + 64
)

// CreateToken makes a token owning namespace, stores its hash and returns
// it: the only time the token exists outside its holder.
func CreateToken(ctx context.Context, st store.Store, namespace string) (string, error) {
	if err := store.CheckNamespace(namespace); err != nil {
		return "", err
	}
	raw := make([]byte, tokenBodyHex/2)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := TokenPrefix + hex.EncodeToString(raw)
	sum := sha256.Sum256([]byte(token))
	if err := st.CreateToken(ctx, store.Token{ID: TokenID(token), Hash: sum[:], Namespace: namespace}); err != nil {
		return "", err
	}
	return token, nil
}

// RevokeToken revokes the token whose id is given (the 16 hex characters
// after TokenPrefix, which runx registry token list shows): every replica
// refuses it from its next request on (registry_token_revoked). Its row is
// kept, so a refusal can say it was revoked; revoking it again changes
// nothing. A whole token is refused rather than looked up: it is a secret,
// and a command line is visible to every user of the machine.
func RevokeToken(ctx context.Context, st store.Store, id string, now time.Time) (store.Token, error) {
	if err := CheckTokenID(id); err != nil {
		return store.Token{}, err
	}
	t, err := st.RevokeToken(ctx, id, now)
	if errors.Is(err, store.ErrNotFound) {
		return store.Token{}, contract.Errorf(errcode.RegistryTokenNotFound, "this registry holds no token with id %s (runx registry token list shows the ids)", id)
	}
	return t, err
}

// CheckTokenID refuses anything but a token's id: 16 lowercase hex
// characters.
func CheckTokenID(id string) error {
	if len(id) != tokenIDHex || strings.Trim(id, "0123456789abcdef") != "" {
		return contract.Errorf(errcode.RegistryRequestInvalid,
			"%q is not a token id: give the 16 hex characters after %s that runx registry token list shows, never the whole token", shortID(id), TokenPrefix)
	}
	return nil
}

// TokenID is a token's public id, which finds its row.
func TokenID(token string) string { return token[len(TokenPrefix):][:tokenIDHex] }

// shortID shows at most the first 16 bytes of what was given as a token
// id: enough to recognise it, and never any of a token's secret part,
// which follows its prefix and 16 hex characters of id.
func shortID(s string) string {
	if len(s) > tokenIDHex {
		return s[:tokenIDHex] + "…"
	}
	return s
}

// authenticate returns the namespaces the request's bearer token owns.
func (s *Server) authenticate(r *http.Request) ([]string, error) {
	unknown := refuse(http.StatusUnauthorized, errcode.RegistryTokenInvalid,
		"this needs Authorization: Bearer with a publish token this registry issued (runx registry token create)")
	h := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(h, "Bearer ")
	body, prefixed := strings.CutPrefix(token, TokenPrefix)
	if !ok || !prefixed || len(body) != tokenBodyHex {
		return nil, unknown
	}
	t, err := s.store.Token(r.Context(), body[:tokenIDHex])
	if errors.Is(err, store.ErrNotFound) {
		return nil, unknown
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], t.Hash) != 1 {
		return nil, unknown
	}
	// Only the token's holder learns that it was revoked: the hash
	// matched first.
	if !t.RevokedAt.IsZero() {
		return nil, refuse(http.StatusUnauthorized, errcode.RegistryTokenRevoked,
			"this publish token was revoked on %s; ask the registry's operator for a new one (runx registry token create)", t.RevokedAt.UTC().Format(time.RFC3339))
	}
	return []string{t.Namespace}, nil
}

func (s *Server) whoami(w http.ResponseWriter, r *http.Request) {
	ns, err := s.authenticate(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"namespaces": ns})
}
