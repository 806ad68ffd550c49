package pkg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxSafeInteger is the largest integer every JSON reader (and JavaScript)
// holds exactly. Larger integers are refused rather than silently rounded;
// exact large ids and amounts travel as strings.
const maxSafeInteger = 1<<53 - 1

// Values read from YAML or JSON take one Go shape everywhere in runx: nil,
// bool, string, int64 (an integer literal), float64 (any other number),
// []any and map[string]any. Keeping integers as int64 means a value read
// twice compares equal and re-encodes to the same text.

type nodeKind uint8

const (
	scalarNode nodeKind = iota
	mapNode
	seqNode
)

// node is a YAML value that passed the strict subset: plain maps, lists and
// JSON scalars, each with the position it was written at.
type node struct {
	kind    nodeKind
	pos     Position
	value   any // scalarNode: nil, bool, string, int64 or float64
	entries []entry
	items   []*node
}

type entry struct {
	key    string
	keyPos Position
	value  *node
}

func (n *node) isNull() bool { return n == nil || (n.kind == scalarNode && n.value == nil) }

// toValue converts a node to the shared JSON-shaped value.
func (n *node) toValue() any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.entries))
		for _, e := range n.entries {
			m[e.key] = e.value.toValue()
		}
		return m
	case seqNode:
		l := make([]any, len(n.items))
		for i, it := range n.items {
			l[i] = it.toValue()
		}
		return l
	}
	return n.value
}

// describe names a node's shape for messages, never its content.
func (n *node) describe() string {
	if n == nil {
		return "null"
	}
	switch n.kind {
	case mapNode:
		return "a mapping"
	case seqNode:
		return "a list"
	}
	return jsonKind(n.value)
}

func jsonKind(v any) string {
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

// numberFromText reads a JSON-grammar number: an integer literal becomes an
// int64 within ±(2^53-1) and is refused outside it; anything else is a float64.
func numberFromText(text string) (any, error) {
	if !strings.ContainsAny(text, ".eE") {
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil || i > maxSafeInteger || i < -maxSafeInteger {
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

// looksLikeJSONNumber reports whether s follows JSON's number grammar,
// allowing a leading '+' as YAML does.
func looksLikeJSONNumber(s string) bool {
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

func isDecimalInteger(s string) bool {
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

// normalizeJSON converts a value decoded with json.Decoder.UseNumber into the
// shared shape, refusing integers that cannot be held exactly.
func normalizeJSON(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		return numberFromText(string(v))
	case map[string]any:
		for k, item := range v {
			n, err := normalizeJSON(item)
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
		return v, nil
	case []any:
		for i, item := range v {
			n, err := normalizeJSON(item)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
		return v, nil
	}
	return v, nil
}

// decodeJSONValue decodes exactly one JSON value from text.
func decodeJSONValue(text []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return normalizeJSON(v)
}

// cloneValue deep-copies a shared-shape value so a default handed to one run
// cannot be changed through another.
func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, item := range v {
			m[k] = cloneValue(item)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, item := range v {
			l[i] = cloneValue(item)
		}
		return l
	}
	return v
}
