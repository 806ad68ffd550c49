package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The plain writer is Canonical's and Digest's path for what runs carry
// most, and largest: values decoded from JSON (a run's inputs, a step's
// resolved inputs) made of objects with ASCII keys, arrays, strings,
// booleans, null and integers a double holds exactly. Their RFC 8785 form
// is written straight from the value: Canonical measures it first and
// writes it into one buffer of exactly its size, and Digest hashes it as
// it is written, holding no copy at all. encoding/json followed by a JCS
// pass held the value two to four times over (a 64 MiB input cost 256 MB
// of buffers for each of the run's record and its step's digest).
//
// Anything else (a float with a fraction, an integer past 2^53, a non-ASCII
// key, a string that is not valid UTF-8, a Go type of any other kind)
// makes it give up, and the encoding/json and JCS path decides. The
// property test in plain_test.go holds the two to the same bytes.

// plainMaxDepth is where the plain writer leaves a deep value to the
// general path.
const plainMaxDepth = 256

// maxExactInt is the largest integer magnitude a double holds exactly:
// past it JCS writes the double's own form, which the general path gives.
const maxExactInt = 1 << 53

// plainCanonical is the canonical form of a plain value; ok is false when
// v is not plain.
func plainCanonical(v any) ([]byte, bool) {
	count := plainWriter{counting: true}
	if !count.value(v, 0) {
		return nil, false
	}
	w := plainWriter{buf: make([]byte, 0, count.n)}
	w.value(v, 0)
	return w.buf, true
}

// plainDigest is the digest of a plain value's canonical form, hashed as
// it is written; ok is false when v is not plain.
func plainDigest(v any) (string, bool) {
	h := sha256.New()
	w := plainWriter{buf: make([]byte, 0, plainChunk), sum: h}
	if !w.value(v, 0) {
		return "", false
	}
	w.flush()
	return DigestPrefix + hex.EncodeToString(h.Sum(nil)), true
}

// plainChunk is how much the digest path buffers before it hashes.
const plainChunk = 32 << 10

// plainWriter writes a plain value's canonical form: counting its length
// (counting), hashing it chunk by chunk (sum), or appending it to buf.
type plainWriter struct {
	counting bool
	n        int
	buf      []byte
	sum      interface{ Write([]byte) (int, error) }
}

func (w *plainWriter) text(s string) {
	switch {
	case w.counting:
		w.n += len(s)
	case w.sum == nil:
		w.buf = append(w.buf, s...)
	default:
		for len(s) > 0 {
			if len(w.buf) == cap(w.buf) {
				w.flush()
			}
			k := copy(w.buf[len(w.buf):cap(w.buf)], s)
			w.buf = w.buf[:len(w.buf)+k]
			s = s[k:]
		}
	}
}

func (w *plainWriter) flush() {
	if w.sum != nil && len(w.buf) > 0 {
		_, _ = w.sum.Write(w.buf)
		w.buf = w.buf[:0]
	}
}

func (w *plainWriter) value(v any, depth int) bool {
	if depth > plainMaxDepth {
		return false
	}
	switch x := v.(type) {
	case nil:
		w.text("null")
	case bool:
		w.text(strconv.FormatBool(x))
	case string:
		return w.string(x)
	case int:
		return w.integer(int64(x))
	case int64:
		return w.integer(x)
	case float64:
		// A double that is a whole number JCS writes as that integer (and
		// -0 as 0); any other is left to the general path.
		if x < -maxExactInt || x > maxExactInt || float64(int64(x)) != x {
			return false
		}
		return w.integer(int64(x))
	case json.Number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil || strconv.FormatInt(i, 10) != string(x) {
			return false
		}
		return w.integer(i)
	case []any:
		if x == nil {
			// encoding/json writes a nil slice as null.
			w.text("null")
			return true
		}
		w.text("[")
		for i, e := range x {
			if i > 0 {
				w.text(",")
			}
			if !w.value(e, depth+1) {
				return false
			}
		}
		w.text("]")
	case map[string]any:
		if x == nil {
			w.text("null")
			return true
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			for i := 0; i < len(k); i++ {
				if k[i] >= utf8.RuneSelf {
					// Non-ASCII keys sort by UTF-16 code units, not bytes.
					return false
				}
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w.text("{")
		for i, k := range keys {
			if i > 0 {
				w.text(",")
			}
			w.string(k)
			w.text(":")
			if !w.value(x[k], depth+1) {
				return false
			}
		}
		w.text("}")
	default:
		return false
	}
	return true
}

func (w *plainWriter) integer(i int64) bool {
	if i < -maxExactInt || i > maxExactInt {
		return false
	}
	w.text(strconv.FormatInt(i, 10))
	return true
}

// string writes s as appendString does (only '"', '\\' and control
// characters escaped), in runs of unescaped text so a long string is
// never copied whole.
func (w *plainWriter) string(s string) bool {
	if !utf8.ValidString(s) {
		// encoding/json would write U+FFFD for the bad bytes.
		return false
	}
	const hexDigits = "0123456789abcdef"
	w.text(`"`)
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		w.text(s[start:i])
		switch c {
		case '"':
			w.text(`\"`)
		case '\\':
			w.text(`\\`)
		case '\b':
			w.text(`\b`)
		case '\f':
			w.text(`\f`)
		case '\n':
			w.text(`\n`)
		case '\r':
			w.text(`\r`)
		case '\t':
			w.text(`\t`)
		default:
			w.text(`\u00` + string([]byte{hexDigits[c>>4], hexDigits[c&0xf]}))
		}
		start = i + 1
	}
	w.text(s[start:])
	w.text(`"`)
	return true
}

// Length is the length of v's canonical form. A plain value is measured
// without being written, so a caller can refuse one over its ceiling
// before it costs a copy; any other is encoded to be measured.
func Length(v any) (int, error) {
	count := plainWriter{counting: true}
	if count.value(v, 0) {
		return count.n, nil
	}
	b, err := encodedCanonical(v)
	return len(b), err
}
