package store

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
)

// Kinds of package, as the store spells them.
const (
	KindSkill     = string(registry.KindSkill)
	KindConnector = string(registry.KindConnector)
)

// Tier is the registry's statement about a namespace's publisher.
type Tier = registry.TrustTier

// The trust tiers.
const (
	TierFirstParty = registry.TierFirstParty
	TierVerified   = registry.TierVerified
	TierCommunity  = registry.TierCommunity
)

// FirstPartyNamespace is the namespace whose tier is first_party unless the
// operator sets another.
const FirstPartyNamespace = "runx"

// ParseTier refuses anything but the three tiers.
func ParseTier(s string) (Tier, error) {
	if t := Tier(s); t.Valid() {
		return t, nil
	}
	return "", contract.Errorf(errcode.RegistryTierInvalid, "trust tier %q is not first_party, verified or community", s)
}

// DefaultTier is a namespace's tier when the operator set none.
func DefaultTier(namespace string) Tier {
	if namespace == FirstPartyNamespace {
		return TierFirstParty
	}
	return TierCommunity
}

var namespacePattern = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// CheckNamespace refuses a namespace that is not lowercase letters, digits
// and single hyphens starting with a letter, at most 64 characters.
func CheckNamespace(ns string) error {
	if len(ns) > 64 || !namespacePattern.MatchString(ns) {
		return contract.Errorf(errcode.RegistryNamespaceInvalid,
			"namespace %q is not lowercase letters, digits and single hyphens starting with a letter (at most 64 characters)", ns)
	}
	return nil
}

// ErrVersionExists: the version is already published.
var ErrVersionExists = errors.New("store: version already published")

// ErrNotFound: no such token, package or version.
var ErrNotFound = errors.New("store: not found")

// File is one file of a published version.
type File struct {
	Path string
	Data []byte
}

// Version is one published version as the store keeps it.
type Version struct {
	Kind          string
	Name          string // skill: "weather"; connector: its whole id, e.g. "google/calendar"
	Publisher     string
	Version       string
	ContentDigest string
	PackageFormat int
	PublishedAt   time.Time
	Description   string
	// Methods is the record's methods list, served as is in search.
	Methods json.RawMessage
	// Record is the signed record, exactly as it is served.
	Record []byte
	Files  []File
}

// Key is the package's key in the store: a skill's "publisher/name", a
// connector's id.
func (v *Version) Key() string {
	if v.Kind == KindSkill {
		return v.Publisher + "/" + v.Name
	}
	return v.Name
}

// Token is a publish token as the store holds it. The id is the token's
// public part, which finds the row; Hash is SHA-256 of the whole token,
// which the server compares in constant time.
type Token struct {
	ID        string
	Hash      []byte
	Namespace string
	// CreatedAt is when it was made; RevokedAt when its operator revoked
	// it (zero while it is live). A revoked token's row is kept, so the
	// server can say it was revoked rather than unknown.
	CreatedAt time.Time
	RevokedAt time.Time
}

// VersionInfo is one line of a package's version list.
type VersionInfo struct {
	Version       string    `json:"version"`
	ContentDigest string    `json:"content_digest"`
	PackageFormat int       `json:"package_format"`
	PublishedAt   time.Time `json:"published_at"`
}

// Hit is one search result: a package's newest version.
type Hit struct {
	Kind        string
	Name        string
	Publisher   string
	Version     string
	Description string
	Methods     json.RawMessage
	Tier        Tier
}

// Store is what the server keeps. Every method is safe for concurrent use.
type Store interface {
	// Key returns the registry's signing key seed, storing fresh when the
	// store holds none; every caller gets the one that was stored first.
	Key(ctx context.Context, fresh []byte) ([]byte, error)
	// CreateToken records a token: its public id, the SHA-256 of the whole
	// token (never the token) and the namespace it owns.
	CreateToken(ctx context.Context, t Token) error
	// Token returns the token with this id, or ErrNotFound.
	Token(ctx context.Context, id string) (Token, error)
	// Tokens lists the tokens (every namespace's when namespace is
	// empty), oldest first, without their hashes.
	Tokens(ctx context.Context, namespace string) ([]Token, error)
	// RevokeToken marks the token with this id revoked at now and returns
	// it, or ErrNotFound. A token revoked before keeps its first time.
	RevokeToken(ctx context.Context, id string, now time.Time) (Token, error)
	// SetTier sets a namespace's tier.
	SetTier(ctx context.Context, namespace string, tier Tier) error
	// Tier returns a namespace's tier (DefaultTier when none is set).
	Tier(ctx context.Context, namespace string) (Tier, error)
	// Publish stores a new version, or returns ErrVersionExists.
	Publish(ctx context.Context, v *Version) error
	// Versions lists a package's versions newest first (skills in semver
	// order, connectors by publish time), or ErrNotFound.
	Versions(ctx context.Context, kind, key string) ([]VersionInfo, error)
	// Record returns a version's signed record, or ErrNotFound.
	Record(ctx context.Context, kind, key, version string) ([]byte, error)
	// Files returns a version's files sorted by path, or ErrNotFound.
	Files(ctx context.Context, kind, key, version string) ([]File, error)
	// Search returns at most limit packages whose newest version matches
	// every word (as a prefix of a word of its names, description or
	// methods), best first; no words lists packages by name.
	Search(ctx context.Context, words []string, limit int) ([]Hit, error)
	Close() error
}

// SearchWords splits a query into the lowercase runs of letters and digits
// the index holds, each once, at most maxWords of at most maxWordLen bytes.
func SearchWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), notWordRune) {
		if len(w) > maxWordLen {
			w = w[:maxWordLen]
		}
		if !seen[w] && len(out) < maxWords {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

const (
	maxWords   = 8
	maxWordLen = 64
)

func notWordRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
}

// searchText is the text the index holds for a version: its names,
// description and method names and descriptions, as words.
func searchText(v *Version) string {
	var methods []struct{ Name, Description string }
	_ = json.Unmarshal(v.Methods, &methods)
	parts := []string{v.Publisher, v.Name, v.Description}
	for _, m := range methods {
		parts = append(parts, m.Name, m.Description)
	}
	return strings.Join(strings.FieldsFunc(strings.ToLower(strings.Join(parts, " ")), notWordRune), " ")
}

// newer reports whether version a of a package of kind replaces b as its
// newest: a skill's versions in semver order; a connector's versions are
// named by their content, so the one published last is the newest.
func newer(kind, a, b string) bool {
	if kind == KindSkill {
		return semver.Compare(a, b) > 0
	}
	return true
}
