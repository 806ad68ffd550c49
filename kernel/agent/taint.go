package agent

import (
	"encoding/json"
	"strings"
)

// Redacted replaces a delivered credential wherever it would leave.
const Redacted = "[redacted]"

// taint is the run-scoped taint set of a managed drive: the provider key it
// delivered. Every string the driver passes on (tool inputs, the turn's
// answer, a provider's message) is scrubbed of it first.
type taint struct{ values []string }

func newTaint(values ...string) *taint {
	t := &taint{}
	for _, v := range values {
		if v != "" {
			t.values = append(t.values, v)
		}
	}
	return t
}

func (t *taint) scrub(s string) string {
	for _, v := range t.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
}

// scrubJSON scrubs a JSON document's strings (and keys), keeping it JSON.
func (t *taint) scrubJSON(raw json.RawMessage) json.RawMessage {
	if len(t.values) == 0 {
		return raw
	}
	hit := false
	for _, v := range t.values {
		if strings.Contains(string(raw), v) {
			hit = true
		}
	}
	if !hit {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return json.RawMessage(`{}`)
	}
	out, _ := json.Marshal(t.walk(v))
	return out
}

func (t *taint) walk(v any) any {
	switch x := v.(type) {
	case string:
		return t.scrub(x)
	case []any:
		for i := range x {
			x[i] = t.walk(x[i])
		}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[t.scrub(k)] = t.walk(e)
		}
		return m
	}
	return v
}
