package store

import (
	"context"
	"errors"

	"golang.org/x/mod/sumdb/tlog"
)

// SchemaMarker is the meta row naming the schema revision both stores write.
const SchemaMarker = "runx.notary.store.v1"

// ErrNotFound: no such token or entry.
var ErrNotFound = errors.New("store: not found")

// Entry is one statement in the log.
type Entry struct {
	Index       int64
	ContentHash string
	// Leaf is the statement's canonical bytes, the log's record.
	Leaf []byte
	// Seal is the counter-seal's JSON.
	Seal []byte
}

// Token is a notarize token as the store holds it: its public id, SHA-256
// of the whole token, and the name of whom it was issued to.
type Token struct {
	ID   string
	Hash []byte
	Name string
}

// Build makes the entry for a content hash at index: the statement's leaf
// and counter-seal.
type Build func(index int64) (leaf, seal []byte, err error)

// Store is what the notary keeps. Every method is safe for concurrent use.
type Store interface {
	// Key returns the notary's signing key seed, storing fresh when the
	// store holds none; every caller gets the one stored first.
	Key(ctx context.Context, fresh []byte) ([]byte, error)
	CreateToken(ctx context.Context, t Token) error
	// Token returns the token with this id, or ErrNotFound.
	Token(ctx context.Context, id string) (Token, error)
	// Append logs the content hash once: the entry already logged for it
	// (fresh false), or a new entry build makes at the next index, with
	// its stored hashes, under the log's one writer. It returns the tree's
	// size once the entry is in it.
	Append(ctx context.Context, contentHash string, build Build) (e Entry, size int64, fresh bool, err error)
	// Entry returns the entry logged for a content hash, or ErrNotFound.
	Entry(ctx context.Context, contentHash string) (Entry, error)
	// Size is the number of entries in the log.
	Size(ctx context.Context) (int64, error)
	// Hashes reads the log's stored hashes.
	Hashes(ctx context.Context) tlog.HashReader
	Close() error
}
