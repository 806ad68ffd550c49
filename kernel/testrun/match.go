package testrun

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// matchSubset reports where got fails to contain want: objects may carry
// more fields, arrays must have the same length and order (an object inside
// one is itself a subset), an explicit null needs the field present as null,
// and scalars must be equal. It returns "" on a match.
func matchSubset(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %s", pathOr(path), kind(got))
		}
		for k, wv := range w {
			gv, present := g[k]
			if !present {
				return fmt.Sprintf("%s/%s: missing", path, escape(k))
			}
			if msg := matchSubset(path+"/"+escape(k), wv, gv); msg != "" {
				return msg
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: want an array, got %s", pathOr(path), kind(got))
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: want %d items, got %d", pathOr(path), len(w), len(g))
		}
		for i := range w {
			if msg := matchSubset(path+"/"+strconv.Itoa(i), w[i], g[i]); msg != "" {
				return msg
			}
		}
		return ""
	}
	if !scalarEqual(want, got) {
		return fmt.Sprintf("%s: want %s, got %s", pathOr(path), show(want), show(got))
	}
	return ""
}

// matchExact reports where got differs from want at all.
func matchExact(want, got any) string {
	if reflect.DeepEqual(normalize(want), normalize(got)) {
		return ""
	}
	return fmt.Sprintf("want exactly %s, got %s", show(want), show(got))
}

// normalize makes YAML-decoded and JSON-decoded values comparable: every
// number becomes a float64.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = normalize(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = normalize(e)
		}
		return l
	}
	if f, ok := toFloat(v); ok {
		return f
	}
	return v
}

func scalarEqual(a, b any) bool {
	fa, okA := toFloat(a)
	fb, okB := toFloat(b)
	if okA || okB {
		return okA && okB && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint32:
		return float64(n), true
	}
	return 0, false
}

// resolvePointer follows an RFC 6901 pointer; ok is false when nothing is
// there.
func resolvePointer(doc any, pointer string) (any, bool) {
	if pointer == "" {
		return doc, true
	}
	cur := doc
	for _, raw := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok := strings.ReplaceAll(strings.ReplaceAll(raw, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func pathOr(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	if _, ok := toFloat(v); ok {
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// show writes a value as the JSON a test's author wrote and reads, never as
// Go's map[string]interface {}{...}.
func show(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	var s string
	if err := enc.Encode(v); err != nil {
		s = fmt.Sprintf("(%s)", kind(v))
	} else {
		s = strings.TrimSuffix(b.String(), "\n")
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
