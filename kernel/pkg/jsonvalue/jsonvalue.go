// Package jsonvalue holds the one Go shape runx gives a value read from YAML
// or JSON: nil, bool, string, int64 (an integer literal), float64 (any other
// number), []any and map[string]any. Keeping integers as int64 means a value
// read twice compares equal and re-encodes to the same text. It imports
// nothing of runx: package loading and the schema validator both build on it.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxSafeInteger is the largest integer every JSON reader (and JavaScript)
// holds exactly. Larger integers are refused rather than silently rounded;
// exact large ids and amounts travel as strings.
const MaxSafeInteger = 1<<53 - 1

// Kind names a value's JSON type for messages, never its content.
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// FromNumberText reads a JSON-grammar number: an integer literal becomes an
// int64 within ±(2^53-1) and is refused outside it; anything else is a float64.
func FromNumberText(text string) (any, error) {
	if !strings.ContainsAny(text, ".eE") {
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil || i > MaxSafeInteger || i < -MaxSafeInteger {
			return nil, fmt.Errorf("integer %s is beyond ±(2^53-1), which JSON readers cannot hold exactly", text)
		}
		return i, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("number %s is out of range", text)
	}
	return f, nil
}

// LooksLikeNumber reports whether s follows JSON's number grammar,
// allowing a leading '+' as YAML does.
func LooksLikeNumber(s string) bool {
	s = strings.TrimPrefix(s, "+")
	s = strings.TrimPrefix(s, "-")
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// IsDecimalInteger reports whether s is a plain decimal integer: an optional
// '-', then digits with no leading zero.
func IsDecimalInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Normalize converts a value decoded with json.Decoder.UseNumber into the
// shared shape, refusing integers that cannot be held exactly.
func Normalize(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		return FromNumberText(string(v))
	case map[string]any:
		for k, item := range v {
			n, err := Normalize(item)
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
		return v, nil
	case []any:
		for i, item := range v {
			n, err := Normalize(item)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
		return v, nil
	}
	return v, nil
}

// Decode decodes exactly one JSON value from text.
func Decode(text []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return Normalize(v)
}

// Clone deep-copies a shared-shape value so a default handed to one run
// cannot be changed through another.
func Clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, item := range v {
			m[k] = Clone(item)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, item := range v {
			l[i] = Clone(item)
		}
		return l
	}
	return v
}

// ValidPointer reports whether s is an RFC 6901 JSON pointer: empty (the
// whole document) or "/"-prefixed tokens in which every '~' is followed by
// '0' or '1'.
func ValidPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}
