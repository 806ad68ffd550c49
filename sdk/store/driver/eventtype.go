package driver

import (
	"bytes"
	"encoding/json"

	"github.com/runxhq/runx/sdk/errcode"
)

// deriveEventType labels a canonical event: its "type", else
// "<effect_family>.<operation>" (the generic runx effect packet), else
// DefaultEventType. A field that is present but unusable is refused rather
// than silently relabelled.
//
// It scans the canonical bytes for the three top-level members instead of
// decoding the document: it runs on every append, and the event was just
// validated and canonicalized (no whitespace, members sorted).
func deriveEventType(event []byte) (string, error) {
	var typ, family, operation []byte
	if !scanTopMembers(event, func(key, value []byte) {
		switch string(key) {
		case "type":
			typ = value
		case "effect_family":
			family = value
		case "operation":
			operation = value
		}
	}) {
		return "", Errorf(errcode.InvalidEvent, "event must be a JSON object")
	}
	if typ != nil {
		t, ok := canonicalString(typ)
		if !ok || !isEventType(t) {
			return "", Errorf(errcode.InvalidEvent, "event type must be a string of 1..%d letters, digits and . _ : - starting with a letter or digit", maxEventTypeBytes)
		}
		return t, nil
	}
	if family == nil || operation == nil {
		return DefaultEventType, nil
	}
	f, ok1 := canonicalString(family)
	o, ok2 := canonicalString(operation)
	t := f + "." + o
	if !ok1 || !ok2 || !isEventType(f) || !isEventType(o) || !isEventType(t) {
		return "", Errorf(errcode.InvalidEvent, "effect_family and operation must be strings of letters, digits and . _ : - that make an event type of at most %d bytes", maxEventTypeBytes)
	}
	return t, nil
}

// canonicalString decodes a JSON string value.
func canonicalString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// scanTopMembers calls fn with each top-level member's key (as written,
// without quotes) and raw value, for a canonical JSON object. It reports
// false for anything else.
func scanTopMembers(doc []byte, fn func(key, value []byte)) bool {
	if len(doc) < 2 || doc[0] != '{' {
		return false
	}
	i := 1
	if doc[i] == '}' {
		return len(doc) == 2
	}
	for i < len(doc) && doc[i] == '"' {
		keyEnd := skipString(doc, i)
		if keyEnd < 0 || keyEnd >= len(doc) || doc[keyEnd] != ':' {
			return false
		}
		valueEnd := skipValue(doc, keyEnd+1)
		if valueEnd < 0 || valueEnd >= len(doc) {
			return false
		}
		fn(doc[i+1:keyEnd-1], doc[keyEnd+1:valueEnd])
		switch doc[valueEnd] {
		case ',':
			i = valueEnd + 1
		case '}':
			return valueEnd == len(doc)-1
		default:
			return false
		}
	}
	return false
}

// skipString returns the index just past the string starting at i.
func skipString(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index just past the value starting at i.
func skipValue(doc []byte, i int) int {
	if i >= len(doc) {
		return -1
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				if j = skipString(doc, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(doc) && doc[j] != ',' && doc[j] != '}' && doc[j] != ']' {
		j++
	}
	return j
}
