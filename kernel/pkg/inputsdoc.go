package pkg

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/sdk/errcode"
)

// MaxInputsDocumentSize caps an --inputs document. It is a control document,
// not a payload channel: large content belongs behind an artifact.
const MaxInputsDocumentSize = 64 << 20

// ReadInputsDocument reads an --inputs document from a file or stdin, reading
// at most one byte past the cap so an oversized stream is refused without
// being held in memory whole.
func ReadInputsDocument(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		// A file's size is known: one allocation, not a doubling series
		// (which cost 157 MB for a 64 MiB document).
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if info.Size() > MaxInputsDocumentSize {
				return nil, tooLarge()
			}
			buf.Grow(int(info.Size()) + bytes.MinRead)
		}
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxInputsDocumentSize+1)); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b) > MaxInputsDocumentSize {
		return nil, tooLarge()
	}
	return b, nil
}

func tooLarge() error {
	return refuse(errcode.InputsDocumentTooLarge, "the inputs document is larger than 64 MiB; put large content behind an artifact and pass its reference")
}

// decodeInputsDocument decodes exactly one JSON object. Its messages say
// what is wrong and where (a byte offset), never what the document holds.
func decodeInputsDocument(doc []byte) (map[string]any, error) {
	if len(doc) > MaxInputsDocumentSize {
		return nil, tooLarge()
	}
	invalid := func(why string) error {
		return refuse(errcode.InputsDocumentInvalid, "the inputs document must be exactly one JSON object: %s", why)
	}
	if !utf8.Valid(doc) {
		return nil, invalid("it is not valid UTF-8")
	}
	// The document is walked in place: checked whole first (one meaning:
	// no key twice at any depth), then each input decoded from its own
	// bytes, so a 64 MiB document is not buffered again by a decoder.
	dup, err := contract.DuplicateKey(doc)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(json.Unmarshal(doc, new(json.RawMessage)), &se) {
			return nil, invalid("it is not valid JSON (near byte " + strconv.FormatInt(se.Offset, 10) + ")")
		}
		return nil, invalid("it is not valid JSON")
	}
	if dup != "" {
		// Two values for one key would mean different things to
		// different readers; neither is chosen.
		if !strings.ContainsAny(dup, ".[") {
			return nil, invalid("it names one input twice")
		}
		return nil, invalid("a key appears twice in one object (at " + shownPath(dup) + ")")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, invalid("it does not start with {")
	}
	out := make(map[string]any, len(raw))
	for key, v := range raw {
		value, err := decodeInputValue(v)
		if err != nil {
			return nil, invalid("it is not valid JSON")
		}
		if out[key], err = jsonvalue.Normalize(value); err != nil {
			return nil, refuse(errcode.InputTypeInvalid, "the inputs document holds an integer beyond ±(2^53-1); pass large ids and amounts as strings")
		}
	}
	return out, nil
}

// decodeInputValue decodes one input: a string straight from its bytes
// (the large case), anything else keeping its numbers exact.
func decodeInputValue(v json.RawMessage) (any, error) {
	if len(v) > 0 && v[0] == '"' {
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var out any
	err := dec.Decode(&out)
	return out, err
}

// shownPath is a path as a refusal may show it: at most 64 bytes of it.
func shownPath(p string) string {
	if len(p) <= 64 {
		return p
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return p[:cut] + "…"
}
