package driver

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
)

// canonObject is a JSON object whose digest is taken over its RFC 8785 form.
//
// Result digests cover fixed shapes of strings, integers and already-canonical
// event digests, so they are written straight into the hash here instead of
// going through encoding/json and a JCS re-parse: a page of 500 events then
// costs microseconds, not a second copy of the page. The test in
// canonical_test.go holds this writer to the output of gowebpki/jcs.
//
// Values may be string, int64, int, bool, nil, canonObject, []canonObject and
// []any of those. Keys must be ASCII, where byte order is RFC 8785's UTF-16
// order.
type canonObject map[string]any

func (o canonObject) digest() string {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 4096)
	writeCanon(w, o)
	w.Flush()
	return DigestPrefix + hex.EncodeToString(h.Sum(nil))
}

func (o canonObject) bytes() []byte {
	var b bytesWriter
	w := bufio.NewWriter(&b)
	writeCanon(w, o)
	w.Flush()
	return b
}

type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }

func writeCanon(w *bufio.Writer, v any) {
	switch x := v.(type) {
	case nil:
		w.WriteString("null")
	case bool:
		w.WriteString(strconv.FormatBool(x))
	case int:
		w.WriteString(strconv.Itoa(x))
	case int64:
		w.WriteString(strconv.FormatInt(x, 10))
	case string:
		writeCanonString(w, x)
	case canonObject:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.WriteByte(',')
			}
			writeCanonString(w, k)
			w.WriteByte(':')
			writeCanon(w, x[k])
		}
		w.WriteByte('}')
	case []canonObject:
		w.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.WriteByte(',')
			}
			writeCanon(w, e)
		}
		w.WriteByte(']')
	case []any:
		w.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.WriteByte(',')
			}
			writeCanon(w, e)
		}
		w.WriteByte(']')
	default:
		// A programming error in this package, caught by its tests.
		panic(fmt.Sprintf("canonical writer: unsupported %T", v))
	}
}

// writeCanonString writes a string as ECMAScript's JSON.stringify does, which
// is what RFC 8785 specifies: only '"', '\\' and control characters escaped.
func writeCanonString(w *bufio.Writer, s string) {
	const hexDigits = "0123456789abcdef"
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		w.WriteString(s[start:i])
		switch c {
		case '"':
			w.WriteString(`\"`)
		case '\\':
			w.WriteString(`\\`)
		case '\b':
			w.WriteString(`\b`)
		case '\f':
			w.WriteString(`\f`)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		default:
			w.WriteString(`\u00`)
			w.WriteByte(hexDigits[c>>4])
			w.WriteByte(hexDigits[c&0xf])
		}
		start = i + 1
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}

// redactionsCanon is the canonical form of a redaction list.
func redactionsCanon(rs []Redaction) []canonObject {
	out := make([]canonObject, len(rs))
	for i, r := range rs {
		out[i] = canonObject{"event_ref": r.EventRef, "path": r.Path, "class": r.Class}
	}
	return out
}
