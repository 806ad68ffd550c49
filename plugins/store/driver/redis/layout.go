package redis

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// Key layout under the binding's key_prefix. Names are digests of the
// stream's address, so any source, resource and key map to short, safe Redis
// keys, and the resource's digest is a hash tag: a resource's keys share one
// cluster slot, which the append script needs (it touches all four).
//
//	<prefix>:{r<resource digest>}:events:<stream digest>  list: the stream, one element per event, version = index + 1
//	<prefix>:{r<resource digest>}:idem:<stream digest>    hash: idempotency key -> "<version>\x1f<event digest>"
//	<prefix>:{r<resource digest>}:heads                   hash: aggregate_id -> head record
//	<prefix>:{r<resource digest>}:keys                    sorted set: aggregate_ids, all score 0, for keyset listing by lex order
type streamKeys struct {
	events, idem, heads, keys string
	id                        string // the stream digest, also the head-cache key
}

// digestHex names keys: the first 16 bytes of SHA-256 over the canonical
// JSON array of the parts (unambiguous however the parts are spelled).
func digestHex(parts ...string) string {
	sum := sha256.Sum256(driver.CanonicalStrings(parts...))
	return hex.EncodeToString(sum[:16])
}

func resourceTag(prefix, source, resource string) string {
	return prefix + ":{r" + digestHex(source, resource) + "}:"
}

func keysFor(prefix string, s driver.Stream) streamKeys {
	tag := resourceTag(prefix, s.Source, s.Resource.Name)
	id := digestHex(s.Source, s.Resource.Name, s.Key)
	return streamKeys{
		events: tag + "events:" + id,
		idem:   tag + "idem:" + id,
		heads:  tag + "heads",
		keys:   tag + "keys",
		id:     id,
	}
}

// resourceKeys are the keys a resource's listing reads: its heads hash and
// its keys index.
func resourceKeys(prefix, source, resource string) (heads, keys string) {
	tag := resourceTag(prefix, source, resource)
	return tag + "heads", tag + "keys"
}

// validPrefix: a printable prefix without spaces; at most one hash tag.
func validPrefix(p string) bool {
	if p == "" || len(p) > 192 || strings.Count(p, "{") > 1 || strings.Count(p, "}") > 1 {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:{}/-", c) >= 0
		if !ok || (i == 0 && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// sep separates fields. Idempotency keys, event types and digests cannot hold
// control characters, and the canonical event JSON escapes them, so the
// separator never occurs inside a field.
const sep = "\x1f"

// elementVersion tags the element format, so a future layout is told apart.
const elementVersion = "1"

// encodeElement is one stored event:
// 1 \x1f version \x1f committed_ms \x1f event_type \x1f event_digest \x1f projection_digest \x1f idempotency_key \x1f event_json
func encodeElement(version int64, at time.Time, p *driver.PreparedAppend, projection string) string {
	var b strings.Builder
	b.Grow(len(p.Event) + len(p.IdempotencyKey) + len(p.EventType) + 180)
	for _, f := range []string{elementVersion, strconv.FormatInt(version, 10), strconv.FormatInt(at.UnixMilli(), 10),
		p.EventType, p.EventDigest, projection, p.IdempotencyKey} {
		b.WriteString(f)
		b.WriteString(sep)
	}
	b.Write(p.Event)
	return b.String()
}

func decodeElement(s string) (driver.Event, bool) {
	// Field by field with IndexByte: a page decodes 500 of these, and a
	// split would allocate a slice per element.
	var f [7]string
	rest := s
	for i := range f {
		j := strings.IndexByte(rest, sep[0])
		if j < 0 {
			return driver.Event{}, false
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	if f[0] != elementVersion {
		return driver.Event{}, false
	}
	version, err1 := strconv.ParseInt(f[1], 10, 64)
	ms, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil {
		return driver.Event{}, false
	}
	return driver.Event{
		Version: version, CommittedAt: time.UnixMilli(ms).UTC(), Type: f[3], Digest: f[4],
		ProjectionDigest: f[5], IdempotencyKey: f[6], Data: []byte(rest),
	}, true
}

// A head record: version \x1f projection_digest \x1f event_type \x1f event_digest \x1f committed_ms.
// The append script reads only its leading version.
func encodeHead(version int64, projection, eventType, eventDigest string, at time.Time) string {
	return strings.Join([]string{strconv.FormatInt(version, 10), projection, eventType, eventDigest,
		strconv.FormatInt(at.UnixMilli(), 10)}, sep)
}

type headRecord struct {
	version                            int64
	projection, eventType, eventDigest string
	committedAt                        time.Time
}

// decodeHead parses a head record; "" is the head of an empty stream.
func decodeHead(s string) (headRecord, bool) {
	if s == "" {
		return headRecord{projection: driver.GenesisProjection}, true
	}
	f := strings.Split(s, sep)
	if len(f) != 5 {
		return headRecord{}, false
	}
	version, err1 := strconv.ParseInt(f[0], 10, 64)
	ms, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || version <= 0 {
		return headRecord{}, false
	}
	return headRecord{version: version, projection: f[1], eventType: f[2], eventDigest: f[3], committedAt: time.UnixMilli(ms).UTC()}, true
}

func corrupt(what string) *driver.Error {
	return driver.Errorf(errcode.StoreCorrupt, "the redis store holds a malformed %s; it was not written by this driver or was altered", what)
}
