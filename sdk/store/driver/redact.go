package driver

import (
	"slices"
	"strconv"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// Redaction classes, as a resource declares them.
const (
	ClassSecret  = "secret"
	ClassPrivate = "private"
)

// Redaction records one value replaced by its marker.
//
// Both classes are redacted before an event is digested and stored, so a
// declared field's value never reaches storage, a digest, a receipt or a read:
// a store cannot leak what it never held, and a digest over a low-entropy
// secret could be reversed by guessing. Reads apply the rules again, which
// covers events written before a field was declared. The class is kept in the
// marker so a reader can tell why a value is missing.
type Redaction struct {
	EventRef string `json:"event_ref"`
	Path     string `json:"path"` // a JSON Pointer into the event
	Class    string `json:"class"`
}

// RedactionMarker is the value that replaces a redacted field.
func RedactionMarker(class string) string {
	return "[redacted:" + class + "]"
}

func hasRules(r Resource) bool {
	return len(r.Secret) > 0 || len(r.Private) > 0
}

// pointer is a parsed JSON Pointer; a "*" segment matches every member of an
// object or element of an array (so a literal "*" member cannot be named).
type pointer []string

const maxPointerSegments = 32

func parsePointer(p string) (pointer, error) {
	if p == "" || p[0] != '/' || len(p) > maxPointerBytes {
		return nil, Errorf(errcode.InvalidRequest, "a redacted field must be a JSON Pointer of 2..%d bytes starting with '/' (the whole event cannot be redacted)", maxPointerBytes)
	}
	segs := strings.Split(p[1:], "/")
	if len(segs) > maxPointerSegments {
		return nil, Errorf(errcode.InvalidRequest, "a redacted field may have at most %d segments", maxPointerSegments)
	}
	for i, s := range segs {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(s, "~0", ""), "~1", ""), "~") {
			return nil, Errorf(errcode.InvalidRequest, "a redacted field has a '~' that is not ~0 or ~1")
		}
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, nil
}

func escapeSegment(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// redact replaces every value the resource declares, secret rules first, and
// reports each replaced path once, sorted. A value that already is a marker
// (redacted when it was written) is left as it is and not reported again.
func redact(doc any, r Resource) (any, []Redaction) {
	var out []Redaction
	apply := func(rules []string, class string) {
		for _, rule := range rules {
			p, err := parsePointer(rule)
			if err != nil {
				continue // validated with the stream; unreachable
			}
			doc = redactAt(doc, p, "", class, &out)
		}
	}
	apply(r.Secret, ClassSecret)
	apply(r.Private, ClassPrivate)
	slices.SortFunc(out, func(a, b Redaction) int { return strings.Compare(a.Path, b.Path) })
	return doc, out
}

func redactAt(node any, p pointer, at, class string, out *[]Redaction) any {
	if len(p) == 0 {
		if s, ok := node.(string); ok && (s == RedactionMarker(ClassSecret) || s == RedactionMarker(ClassPrivate)) {
			return node
		}
		*out = append(*out, Redaction{Path: at, Class: class})
		return RedactionMarker(class)
	}
	seg, rest := p[0], p[1:]
	switch n := node.(type) {
	case map[string]any:
		if seg == "*" {
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				n[k] = redactAt(n[k], rest, at+"/"+escapeSegment(k), class, out)
			}
			return n
		}
		if v, ok := n[seg]; ok {
			n[seg] = redactAt(v, rest, at+"/"+escapeSegment(seg), class, out)
		}
	case []any:
		if seg == "*" {
			for i := range n {
				n[i] = redactAt(n[i], rest, at+"/"+strconv.Itoa(i), class, out)
			}
			return n
		}
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n) && strconv.Itoa(i) == seg {
			n[i] = redactAt(n[i], rest, at+"/"+seg, class, out)
		}
	}
	return node
}

// redactStored applies the resource's rules to a stored canonical event.
// Without rules it returns the bytes untouched, so reads of undeclared-secret
// resources cost nothing.
func redactStored(data []byte, r Resource, ref string) ([]byte, []Redaction, error) {
	if !hasRules(r) {
		return data, nil, nil
	}
	doc, err := decodeJSON(data)
	if err != nil {
		return nil, nil, Errorf(errcode.StoreCorrupt, "stored event %s is not valid JSON", ref)
	}
	doc, redactions := redact(doc, r)
	if len(redactions) == 0 {
		return data, nil, nil
	}
	out, err := encodeCanonical(doc)
	if err != nil {
		return nil, nil, Errorf(errcode.StoreCorrupt, "stored event %s cannot be re-encoded", ref)
	}
	for i := range redactions {
		redactions[i].EventRef = ref
	}
	return out, redactions, nil
}
