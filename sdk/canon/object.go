package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// Object is a JSON object whose digest is taken over its RFC 8785 form.
//
// Result digests cover fixed shapes of strings, integers and already-canonical
// event digests, so they are written straight into a buffer here instead of
// going through encoding/json and a JCS re-parse: a store page of 500 events
// then costs microseconds, not a second copy of the page. The test in
// object_test.go holds this writer to the output of gowebpki/jcs.
//
// Values may be string, int64, int, bool, nil, Object, []Object and
// []any of those. Keys must be ASCII, where byte order is RFC 8785's UTF-16
// order.
type Object map[string]any

// Digest is the object's runx digest.
func (o Object) Digest() string {
	buf := canonBuffers.Get().(*[]byte)
	b := appendValue((*buf)[:0], o)
	sum := sha256.Sum256(b)
	*buf = b
	canonBuffers.Put(buf)
	return DigestPrefix + hex.EncodeToString(sum[:])
}

// Bytes is the object's canonical JSON.
func (o Object) Bytes() []byte {
	return appendValue(nil, o)
}

// canonBuffers recycles the scratch buffers digests are written into: a
// result digest is taken for every append and every page.
var canonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// AppendValue writes v's canonical JSON: see Object for the values it takes.
func AppendValue(b []byte, v any) []byte {
	return appendValue(b, v)
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case string:
		return appendString(b, x)
	case Object:
		var stack [16]string
		keys := stack[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendValue(b, x[k])
		}
		return append(b, '}')
	case []Object:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	}
	// A programming error in the caller, caught by its tests.
	panic(fmt.Sprintf("canonical writer: unsupported %T", v))
}

// appendString writes a string as ECMAScript's JSON.stringify does,
// which is what RFC 8785 specifies: only '"', '\\' and control characters
// escaped.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Strings is the RFC 8785 form of a JSON array of strings.
func Strings(parts ...string) []byte {
	b := make([]byte, 0, 64)
	b = append(b, '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p)
	}
	return append(b, ']')
}
