package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Both stores keep a revoked token's row with the time it was first
// revoked, list tokens without their hashes, and answer ErrNotFound for a
// token they never held.
func TestStoreTokenRevocation(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			for _, tok := range []Token{{ID: "00000000000000a1", Hash: []byte("h1"), Namespace: "acme"}, {ID: "00000000000000b2", Hash: []byte("h2"), Namespace: "other"}} {
				if err := s.CreateToken(ctx, tok); err != nil {
					t.Fatal(err)
				}
			}
			live, err := s.Token(ctx, "00000000000000a1")
			if err != nil || !live.RevokedAt.IsZero() || string(live.Hash) != "h1" || live.CreatedAt.IsZero() {
				t.Fatalf("a live token: %+v %v", live, err)
			}
			at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			revoked, err := s.RevokeToken(ctx, "00000000000000a1", at)
			if err != nil || !revoked.RevokedAt.Equal(at) || revoked.Namespace != "acme" {
				t.Fatalf("revoked: %+v %v", revoked, err)
			}
			if again, err := s.RevokeToken(ctx, "00000000000000a1", at.Add(time.Hour)); err != nil || !again.RevokedAt.Equal(at) {
				t.Fatalf("revoked again keeps the first time: %+v %v", again, err)
			}
			if got, err := s.Token(ctx, "00000000000000a1"); err != nil || !got.RevokedAt.Equal(at) || string(got.Hash) != "h1" {
				t.Fatalf("a revoked token is still found, marked revoked: %+v %v", got, err)
			}
			if _, err := s.RevokeToken(ctx, "00000000000000ff", at); !errors.Is(err, ErrNotFound) {
				t.Fatalf("revoking an unknown token: %v, want ErrNotFound", err)
			}
			all, err := s.Tokens(ctx, "")
			if err != nil || len(all) != 2 {
				t.Fatalf("tokens: %+v %v", all, err)
			}
			for _, tok := range all {
				if tok.Hash != nil {
					t.Fatalf("a listed token carries its hash: %+v", tok)
				}
			}
			acme, err := s.Tokens(ctx, "acme")
			if err != nil || len(acme) != 1 || acme[0].ID != "00000000000000a1" || !acme[0].RevokedAt.Equal(at) {
				t.Fatalf("acme's tokens: %+v %v", acme, err)
			}
		})
	}
}
