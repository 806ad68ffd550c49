package pkg

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"
)

// MaxInputsDocumentSize caps an --inputs document. It is a control document,
// not a payload channel: large content belongs behind an artifact.
const MaxInputsDocumentSize = 64 << 20

// ReadInputsDocument reads an --inputs document from a file or stdin, reading
// at most one byte past the cap so an oversized stream is refused without
// being held in memory whole.
func ReadInputsDocument(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxInputsDocumentSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxInputsDocumentSize {
		return nil, tooLarge()
	}
	return b, nil
}

func tooLarge() error {
	return refuse(CodeInputsDocumentTooLarge, "the inputs document is larger than 64 MiB; put large content behind an artifact and pass its reference")
}

// decodeInputsDocument decodes exactly one JSON object. Its messages say
// what is wrong and where (a byte offset), never what the document holds.
func decodeInputsDocument(doc []byte) (map[string]any, error) {
	if len(doc) > MaxInputsDocumentSize {
		return nil, tooLarge()
	}
	invalid := func(why string) error {
		return refuse(CodeInputsDocumentInvalid, "the inputs document must be exactly one JSON object: %s", why)
	}
	if !utf8.Valid(doc) {
		return nil, invalid("it is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, invalid("it does not start with {")
	}
	out := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, invalid("it is not valid JSON (near byte " + strconv.FormatInt(dec.InputOffset(), 10) + ")")
		}
		key, ok := tok.(string)
		if !ok {
			return nil, invalid("it is not valid JSON (near byte " + strconv.FormatInt(dec.InputOffset(), 10) + ")")
		}
		if _, dup := out[key]; dup {
			// Two values for one input would mean different things to
			// different readers; neither is chosen.
			return nil, invalid("it names one input twice")
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, invalid("it is not valid JSON (near byte " + strconv.FormatInt(dec.InputOffset(), 10) + ")")
		}
		if out[key], err = normalizeJSON(v); err != nil {
			return nil, refuse(CodeInputTypeInvalid, "the inputs document holds an integer beyond ±(2^53-1); pass large ids and amounts as strings")
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, invalid("it is not valid JSON (near byte " + strconv.FormatInt(dec.InputOffset(), 10) + ")")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, invalid("data follows the object")
	}
	return out, nil
}
