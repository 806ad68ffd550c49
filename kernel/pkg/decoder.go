package pkg

import (
	"slices"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// decoder turns strict YAML nodes into the typed model. code is the refusal
// code shape errors take where the decoder is working (a step's mistakes are
// step_invalid, a method's method_invalid), so each error says whose it is.
type decoder struct {
	file string
	code errcode.Code
}

func (d decoder) with(code errcode.Code) decoder { return decoder{file: d.file, code: code} }

func (d decoder) fail(pos Position, format string, args ...any) error {
	return refuseAt(d.file, pos, d.code, format, args...)
}

// badSchema refuses a schema that does not compile, keeping the typed cause.
func (d decoder) badSchema(pos Position, label string, err error) error {
	e := refuseAt(d.file, pos, d.code, "%s schema does not compile: %v", label, err)
	e.cause = err
	return e
}

// keyObserver, set only by kernel/pkg's tests, sees every place the decoder
// reads a mapping and the keys it accepts there: TestEveryAcceptedKey derives
// the accepted key set from it, so a key cannot be added without saying
// which test shows its effect.
var keyObserver func(what string, allowed []string)

// fields is a mapping whose keys were checked against what may appear there.
type fields struct{ n *node }

// object checks that n is a mapping holding only allowed keys. Unknown fields
// are refused at every level so a typo never silently means "absent".
func (d decoder) object(n *node, what string, allowed ...string) (fields, error) {
	if keyObserver != nil {
		keyObserver(what, allowed)
	}
	if n == nil || n.kind != mapNode {
		return fields{}, d.fail(n.position(), "%s must be a mapping, not %s", what, n.describe())
	}
	for _, e := range n.entries {
		if !slices.Contains(allowed, e.key) {
			return fields{}, refuseAt(d.file, e.keyPos, errcode.RunxYAMLUnknownField,
				"unknown field %q in %s; known fields: %s", e.key, what, strings.Join(allowed, ", "))
		}
	}
	return fields{n: n}, nil
}

func (f fields) get(key string) *entry {
	for i := range f.n.entries {
		if f.n.entries[i].key == key {
			return &f.n.entries[i]
		}
	}
	return nil
}

func (f fields) has(key string) bool { return f.get(key) != nil }

func (n *node) position() Position {
	if n == nil {
		return Position{}
	}
	return n.pos
}

func (d decoder) str(e *entry, what string) (string, error) {
	if e.value.kind == scalarNode {
		if s, ok := e.value.value.(string); ok {
			return s, nil
		}
	}
	return "", d.fail(e.value.position(), "%s must be a string, not %s", what, e.value.describe())
}

// text reads an optional string field; absent gives "".
func (d decoder) text(f fields, key, what string) (string, error) {
	e := f.get(key)
	if e == nil {
		return "", nil
	}
	return d.str(e, what)
}

// nonEmpty reads an optional string field that, when present, must say something.
func (d decoder) nonEmpty(f fields, key, what string) (string, error) {
	e := f.get(key)
	if e == nil {
		return "", nil
	}
	s, err := d.str(e, what)
	if err == nil && strings.TrimSpace(s) == "" {
		err = d.fail(e.value.position(), "%s must not be empty", what)
	}
	return s, err
}

func (d decoder) strList(e *entry, what string) ([]string, error) {
	if e.value.kind != seqNode {
		return nil, d.fail(e.value.position(), "%s must be a list of strings, not %s", what, e.value.describe())
	}
	out := make([]string, 0, len(e.value.items))
	for _, it := range e.value.items {
		s, ok := it.value.(string)
		if it.kind != scalarNode || !ok {
			return nil, d.fail(it.position(), "%s must be a list of strings; this item is %s", what, it.describe())
		}
		if strings.TrimSpace(s) == "" {
			return nil, d.fail(it.position(), "%s must not hold an empty string", what)
		}
		out = append(out, s)
	}
	return out, nil
}

func (d decoder) boolean(e *entry, what string) (bool, error) {
	if b, ok := e.value.value.(bool); ok && e.value.kind == scalarNode {
		return b, nil
	}
	return false, d.fail(e.value.position(), "%s must be true or false, not %s", what, e.value.describe())
}

// positive reads an integer field that must be at least 1 and at most limit.
func (d decoder) positive(e *entry, what string, limit int64) (int, error) {
	i, ok := e.value.value.(int64)
	if !ok || e.value.kind != scalarNode {
		return 0, d.fail(e.value.position(), "%s must be a positive integer, not %s", what, e.value.describe())
	}
	if i < 1 || i > limit {
		return 0, d.fail(e.value.position(), "%s must be between 1 and %d", what, limit)
	}
	return int(i), nil
}

// oneOf reads an optional string field restricted to a closed vocabulary.
func (d decoder) oneOf(f fields, key, what string, allowed ...string) (string, error) {
	e := f.get(key)
	if e == nil {
		return "", nil
	}
	s, err := d.str(e, what)
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, s) {
		return "", d.fail(e.value.position(), "%s must be one of %s, not %q", what, strings.Join(allowed, ", "), s)
	}
	return s, nil
}

// stringMap reads a mapping of names to strings.
func (d decoder) stringMap(e *entry, what string) (map[string]string, error) {
	if e.value.kind != mapNode {
		return nil, d.fail(e.value.position(), "%s must be a mapping of names to strings, not %s", what, e.value.describe())
	}
	out := make(map[string]string, len(e.value.entries))
	for i := range e.value.entries {
		s, err := d.str(&e.value.entries[i], what+" "+e.value.entries[i].key)
		if err != nil {
			return nil, err
		}
		out[e.value.entries[i].key] = s
	}
	return out, nil
}

// rawMap reads a mapping whose values are kept as written, for content runx
// passes on rather than interprets (literal inputs, authority documents).
func (d decoder) rawMap(e *entry, what string) (map[string]any, error) {
	if e.value.kind != mapNode {
		return nil, d.fail(e.value.position(), "%s must be a mapping, not %s", what, e.value.describe())
	}
	return e.value.toValue().(map[string]any), nil
}

// unsupported refuses the first of keys that f holds, with code, naming the
// field and where it is: a field runx reads but does not carry out is
// refused at admission, never parsed and ignored.
func (d decoder) unsupported(f fields, code errcode.Code, what string, keys ...string) error {
	for _, k := range keys {
		if e := f.get(k); e != nil {
			return refuseAt(d.file, e.keyPos, code, "%s%s is not supported by this runx; remove it", what, k)
		}
	}
	return nil
}
