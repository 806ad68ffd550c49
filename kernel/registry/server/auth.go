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
	if err := st.CreateToken(ctx, store.Token{ID: token[len(TokenPrefix):][:tokenIDHex], Hash: sum[:], Namespace: namespace}); err != nil {
		return "", err
	}
	return token, nil
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
