package sqlite

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"strconv"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// The digests a migration proof carries (docs/decisions/data.md, "Data migration",
// defines them for anyone who recomputes one). Each hashes a sequence of
// fields, each written as its byte length (8 bytes, big-endian) followed by
// its bytes, so no two different sequences can hash alike and no field needs
// escaping. Integers are written in decimal.
const (
	// ContentDefinition is the content digest of a current store: every event
	// by identity and digests, every stream's head, in key order.
	ContentDefinition = "runx.data.content.v1"
	// LegacyContentDefinition is the content digest of a legacy event table:
	// every row, every column, as SQLite's quote() writes the stored value.
	LegacyContentDefinition = "runx.data.legacy_content.v1"
	// FingerprintDefinition is the schema fingerprint: the file's marks and
	// its tables' column lists.
	FingerprintDefinition = "runx.data.schema_fingerprint.v1"
)

// frameHash hashes length-prefixed fields.
type frameHash struct {
	h   hash.Hash
	len [8]byte
}

func newFrameHash(label string) *frameHash {
	f := &frameHash{h: sha256.New()}
	f.field(label)
	return f
}

func (f *frameHash) field(s string) {
	binary.BigEndian.PutUint64(f.len[:], uint64(len(s)))
	f.h.Write(f.len[:])
	f.h.Write([]byte(s))
}

func (f *frameHash) int(v int64) { f.field(strconv.FormatInt(v, 10)) }

func (f *frameHash) sum() string {
	return driver.DigestPrefix + hex.EncodeToString(f.h.Sum(nil))
}

// contentEvent is one event of a current store as the content digest sees
// it: its body is bound through event_digest, which every verification pass
// recomputes from the stored bytes.
type contentEvent struct {
	Source, Resource, Key string
	Version               int64
	IdempotencyKey        string
	Type                  string
	Digest                string
	Projection            string
	CommittedAtMillis     int64
}

func (e contentEvent) stream() driver.StreamID {
	return driver.StreamID{Source: e.Source, Resource: e.Resource, Key: e.Key}
}

// contentHasher folds a store's events, fed in key order (source, resource,
// aggregate_id in byte order, then version), into the content digest. It
// holds the invariants every pass must see: streams in strictly ascending
// order, versions gapless from 1, and each projection digest the fold of the
// previous one with the event's digest. A pass that breaks one is refused,
// whichever pass it is: the build, the read-only reopen or the readback.
type contentHasher struct {
	f        *frameHash
	cur      driver.StreamID
	version  int64
	proj     string
	started  bool
	events   int64
	streams  int64
	finished bool
}

func newContentHasher() *contentHasher {
	return &contentHasher{f: newFrameHash(ContentDefinition)}
}

func (c *contentHasher) add(e contentEvent) error {
	id := e.stream()
	if !c.started || id != c.cur {
		if c.started && !streamLess(c.cur, id) {
			return driver.Errorf(errcode.StoreCorrupt, "streams out of key order at %s", streamName(id))
		}
		c.closeStream()
		c.cur, c.version, c.proj, c.started = id, 0, driver.GenesisProjection, true
		c.streams++
	}
	if e.Version != c.version+1 {
		return driver.Errorf(errcode.StoreCorrupt, "%s: version %d follows version %d; versions must be gapless from 1", streamName(id), e.Version, c.version)
	}
	want, err := driver.NextProjection(c.proj, e.Digest)
	if err != nil {
		return err
	}
	if e.Projection != want {
		return driver.Errorf(errcode.StoreCorrupt, "%s: the projection digest at version %d is not the fold of the events before it", streamName(id), e.Version)
	}
	c.version, c.proj = e.Version, e.Projection
	c.events++
	c.f.field("event")
	c.f.field(e.Source)
	c.f.field(e.Resource)
	c.f.field(e.Key)
	c.f.int(e.Version)
	c.f.field(e.IdempotencyKey)
	c.f.field(e.Type)
	c.f.field(e.Digest)
	c.f.field(e.Projection)
	c.f.int(e.CommittedAtMillis)
	return nil
}

// closeStream writes the head of the stream just finished.
func (c *contentHasher) closeStream() {
	if !c.started {
		return
	}
	c.f.field("head")
	c.f.field(c.cur.Source)
	c.f.field(c.cur.Resource)
	c.f.field(c.cur.Key)
	c.f.int(c.version)
	c.f.field(c.proj)
}

// contentSummary is what a pass over a store proves.
type contentSummary struct {
	Events  int64
	Streams int64
	Digest  string
}

func (c *contentHasher) finish() contentSummary {
	if !c.finished {
		c.closeStream()
		c.f.field("end")
		c.f.int(c.events)
		c.f.int(c.streams)
		c.finished = true
	}
	return contentSummary{Events: c.events, Streams: c.streams, Digest: c.f.sum()}
}

func streamLess(a, b driver.StreamID) bool {
	if a.Source != b.Source {
		return a.Source < b.Source
	}
	if a.Resource != b.Resource {
		return a.Resource < b.Resource
	}
	return a.Key < b.Key
}

// streamName names a stream in a message: identifiers only, never payload.
func streamName(id driver.StreamID) string {
	return strconv.Quote(id.Source) + " " + id.Resource + ":" + id.Key
}
