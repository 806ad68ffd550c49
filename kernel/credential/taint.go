package credential

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// Redacted is what a tainted value becomes wherever it would leave.
const Redacted = "[redacted]"

// minInnerForm is the shortest base64 fragment of a value that is scrubbed
// when the value sits inside a larger encoded blob (`user:secret` in Basic
// auth): shorter fragments would match unrelated text.
const minInnerForm = 8

// Taint is a run's taint set: every value runx delivers (a credential in a
// call's context, a managed agent's key) is added, and every output
// boundary passes what it writes through Scrub, ScrubJSON or Writer. Each
// value is matched in the forms a plugin might echo it in: raw, JSON-string
// escaped (UTF-8, or ASCII-only with \uXXXX in either case), base64
// (standard and URL alphabets, padded or not, and the fragment fully
// determined by the value at each byte alignment inside a longer blob),
// hexadecimal (lower and upper case) and URL escaping as any encoder writes
// it (a space as "+" or "%20", hex digits in either case). A zero Taint is empty and ready to use; it is safe for
// concurrent use and cheap to consult while empty.
type Taint struct {
	mu     sync.Mutex
	values map[string]bool
	forms  atomic.Pointer[formSet]
}

// formSet is an immutable snapshot, longest form first so a padded form
// is replaced whole before its unpadded prefix is looked for. Each form is
// searched with bytes.Index (vectorised) and replaced only where present,
// which measured ~40x faster than a strings.Replacer over many patterns
// when a document does hold a value (BenchmarkCredentialBoundary).
type formSet struct {
	forms [][]byte
}

var redactedBytes = []byte(Redacted)

func (fs *formSet) replace(b []byte) []byte {
	for _, f := range fs.forms {
		if bytes.Contains(b, f) {
			b = bytes.ReplaceAll(b, f, redactedBytes)
		}
	}
	return b
}

func (fs *formSet) replaceString(s string) string {
	for _, f := range fs.forms {
		if strings.Contains(s, string(f)) {
			s = strings.ReplaceAll(s, string(f), Redacted)
		}
	}
	return s
}

// Add puts values into the set. Empty values are ignored.
func (t *Taint) Add(values ...string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	changed := false
	for _, v := range values {
		if v == "" || t.values[v] {
			continue
		}
		if t.values == nil {
			t.values = map[string]bool{}
		}
		t.values[v], changed = true, true
	}
	if !changed {
		return
	}
	seen := map[string]bool{}
	for v := range t.values {
		for _, f := range Forms(v) {
			seen[f] = true
		}
	}
	all := make([]string, 0, len(seen))
	for f := range seen {
		all = append(all, f)
	}
	sort.Slice(all, func(i, j int) bool {
		if len(all[i]) != len(all[j]) {
			return len(all[i]) > len(all[j])
		}
		return all[i] < all[j]
	})
	fs := &formSet{forms: make([][]byte, len(all))}
	for i, f := range all {
		fs.forms[i] = []byte(f)
	}
	t.forms.Store(fs)
}

// Empty reports whether nothing was delivered yet.
func (t *Taint) Empty() bool { return t == nil || t.forms.Load() == nil }

// Forms lists the encodings of v the taint set matches.
func Forms(v string) []string {
	if v == "" {
		return nil
	}
	b := []byte(v)
	out := []string{v, hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)), url.QueryEscape(v), url.PathEscape(v)}
	// Every URL encoder's choices: a space as "+" or "%20", hex in either
	// case, and JavaScript's encodeURIComponent leaving !*'() as they are.
	for _, keep := range []string{"", "!*'()"} {
		for _, plus := range []bool{false, true} {
			for _, digits := range []string{upperHex, lowerHex} {
				out = append(out, percentEscape(v, keep, plus, digits))
			}
		}
	}
	out = append(out, lowerEscapes(url.QueryEscape(v)), lowerEscapes(url.PathEscape(v)))
	// JSON as an ASCII-only encoder writes it (Python's json.dumps, Java's):
	// every non-ASCII rune as \uXXXX, a surrogate pair past U+FFFF.
	out = append(out, jsonASCII(v, upperHex), jsonASCII(v, lowerHex))
	for _, html := range []bool{true, false} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(v)
		s := strings.TrimSpace(buf.String())
		out = append(out, s[1:len(s)-1])
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString(b))
		raw := enc.WithPadding(base64.NoPadding)
		for k := 0; k < 3; k++ {
			// At alignment k the value starts k bytes into a 3-byte
			// group; only the characters built from its bits alone are
			// the same whatever surrounds it.
			shifted := raw.EncodeToString(append(make([]byte, k), b...))
			start, end := (k*8+5)/6, (k+len(b))*8/6
			if k == 0 {
				out = append(out, shifted)
			}
			if end-start >= minInnerForm {
				out = append(out, shifted[start:end])
			}
		}
	}
	uniq := out[:0]
	seen := map[string]bool{}
	for _, f := range out {
		if f != "" && !seen[f] {
			seen[f] = true
			uniq = append(uniq, f)
		}
	}
	return uniq
}

const (
	upperHex = "0123456789ABCDEF"
	lowerHex = "0123456789abcdef"
)

// percentEscape escapes every byte of v but RFC 3986's unreserved ones and
// keep, as %XX with digits; a space is "+" when plus.
func percentEscape(v, keep string, plus bool, digits string) string {
	var sb strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~', strings.IndexByte(keep, c) >= 0:
			sb.WriteByte(c)
		case c == ' ' && plus:
			sb.WriteByte('+')
		default:
			sb.WriteByte('%')
			sb.WriteByte(digits[c>>4])
			sb.WriteByte(digits[c&15])
		}
	}
	return sb.String()
}

// lowerEscapes turns the hex digits of every %XX in s to lower case.
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHexDigit(b[i+1]), lowerHexDigit(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerHexDigit(c byte) byte {
	if 'A' <= c && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// jsonASCII is v's JSON string body with every character JSON requires
// escaped as encoding/json does and every non-ASCII rune as \uXXXX (a
// surrogate pair past U+FFFF), its hex digits from digits.
func jsonASCII(v string, digits string) string {
	var sb strings.Builder
	u := func(r rune) {
		sb.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			sb.WriteByte(digits[(r>>shift)&15])
		}
	}
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20 || r >= 0x80 && r < 0x10000:
			u(r)
		case r >= 0x10000:
			hi, lo := utf16.EncodeRune(r)
			u(hi)
			u(lo)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func (t *Taint) snapshot() *formSet {
	if t == nil {
		return nil
	}
	return t.forms.Load()
}

func (fs *formSet) hit(b []byte) bool {
	for _, f := range fs.forms {
		if bytes.Contains(b, f) {
			return true
		}
	}
	return false
}

// Scrub replaces every tainted form in s with Redacted.
func (t *Taint) Scrub(s string) string {
	fs := t.snapshot()
	if fs == nil || !fs.hitString(s) {
		return s
	}
	return fs.replaceString(s)
}

func (fs *formSet) hitString(s string) bool {
	for _, f := range fs.forms {
		if strings.Contains(s, string(f)) {
			return true
		}
	}
	return false
}

// ScrubBytes is Scrub over bytes; b is returned unchanged (not copied) when
// it holds no tainted form.
func (t *Taint) ScrubBytes(b []byte) []byte {
	fs := t.snapshot()
	if fs == nil || !fs.hit(b) {
		return b
	}
	return fs.replace(b)
}

// ScrubJSON scrubs a JSON document and keeps it JSON: the marker holds no
// character JSON escapes, so a form inside a string stays a string; in the
// rare case a form spans JSON syntax (a value holding a quote), the
// document is decoded and its strings and keys scrubbed one by one.
func (t *Taint) ScrubJSON(raw []byte) []byte {
	fs := t.snapshot()
	if fs == nil || len(raw) == 0 || !fs.hit(raw) {
		return raw
	}
	out := fs.replace(raw)
	if json.Valid(out) || !json.Valid(raw) {
		return out
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return out
	}
	walked, err := json.Marshal(t.walk(v))
	if err != nil {
		return []byte(`"` + Redacted + `"`)
	}
	return walked
}

func (t *Taint) walk(v any) any {
	switch x := v.(type) {
	case string:
		return t.Scrub(x)
	case []any:
		for i := range x {
			x[i] = t.walk(x[i])
		}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[t.Scrub(k)] = t.walk(e)
		}
		return m
	}
	return v
}

// Error returns err with its message scrubbed, keeping its code and its
// chain for errors.Is. nil and clean errors are returned as they are.
func (t *Taint) Error(err error) error {
	if err == nil || t.Empty() {
		return err
	}
	msg := err.Error()
	clean := t.Scrub(msg)
	if clean == msg {
		return err
	}
	return &scrubbedError{code: contract.CodeOf(err), msg: clean, err: err}
}

type scrubbedError struct {
	code errcode.Code
	msg  string
	err  error
}

func (e *scrubbedError) Error() string           { return e.msg }
func (e *scrubbedError) ErrorCode() errcode.Code { return e.code }

// Is lets errors.Is match the sentinels the original chain holds without
// exposing the original message through Unwrap.
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }

// Writer returns w behind the taint set: each Write is scrubbed whole.
// Loggers write one record per Write (hclog does), so a value is never
// split across two writes.
func (t *Taint) Writer(w io.Writer) io.Writer { return &scrubWriter{t: t, w: w} }

type scrubWriter struct {
	t *Taint
	w io.Writer
}

// Unwrap is the stream behind the scrubbing (a terminal check looks at it).
func (s *scrubWriter) Unwrap() io.Writer { return s.w }

func (s *scrubWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(s.t.ScrubBytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
