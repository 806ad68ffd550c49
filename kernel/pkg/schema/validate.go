package schema

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// schemaViolation says where a value breaks its schema: the JSON pointer of
// the failing part of the value, the pointer of the keyword it breaks, and
// what the keyword asks, in the schema's terms only (never the value's, which
// may be a secret).
type schemaViolation struct {
	instance string
	keyword  string
	wants    string
}

func (v *schemaViolation) String() string {
	at := v.instance
	if at == "" {
		at = "the value"
	}
	return fmt.Sprintf("%s breaks schema keyword %s (%s)", at, v.keyword, v.wants)
}

// validate checks v, in the shared value shape, against the schema, and
// returns the first violation found, or nil.
func (s *schema) validate(v any) *schemaViolation {
	return s.check(v, nil)
}

// check validates v, found at instance (the pointer's tokens), against s.
func (s *schema) check(v any, instance []string) *schemaViolation {
	if s.boolean {
		if s.always {
			return nil
		}
		return s.fail(instance, "", "the schema false accepts no value")
	}
	if s.types != 0 && !s.types.has(v) {
		return s.fail(instance, "type", "must be "+s.types.String())
	}
	if s.hasConst && !jsonEqual(v, s.constant) {
		return s.fail(instance, "const", "must be the one value the schema gives")
	}
	if s.hasEnum && !containsValue(s.enum, v) {
		return s.fail(instance, "enum", "must be one of the values the schema lists")
	}
	if f := s.checkKind(v, instance); f != nil {
		return f
	}
	if s.ref != nil {
		if f := s.ref.check(v, instance); f != nil {
			return f
		}
	}
	for i, sub := range s.allOf {
		if sub.check(v, instance) != nil {
			return s.fail(instance, "allOf/"+strconv.Itoa(i), "must match every schema of allOf")
		}
	}
	if len(s.anyOf) > 0 {
		matched := false
		for _, sub := range s.anyOf {
			if sub.check(v, instance) == nil {
				matched = true
				break
			}
		}
		if !matched {
			return s.fail(instance, "anyOf", "must match at least one schema of anyOf")
		}
	}
	if len(s.oneOf) > 0 {
		matched := 0
		for _, sub := range s.oneOf {
			if sub.check(v, instance) == nil {
				matched++
			}
		}
		if matched != 1 {
			return s.fail(instance, "oneOf", fmt.Sprintf("must match exactly one schema of oneOf, not %d", matched))
		}
	}
	if s.not != nil && s.not.check(v, instance) == nil {
		return s.fail(instance, "not", "must not match the schema under not")
	}
	return nil
}

// checkKind applies the keywords that concern one kind of value.
func (s *schema) checkKind(v any, instance []string) *schemaViolation {
	switch v := v.(type) {
	case string:
		if s.minLength >= 0 || s.maxLength >= 0 {
			n := utf8.RuneCountInString(v)
			if s.minLength >= 0 && n < s.minLength {
				return s.fail(instance, "minLength", fmt.Sprintf("must be at least %d characters long", s.minLength))
			}
			if s.maxLength >= 0 && n > s.maxLength {
				return s.fail(instance, "maxLength", fmt.Sprintf("must be at most %d characters long", s.maxLength))
			}
		}
		if s.pattern != nil && !s.pattern.MatchString(v) {
			return s.fail(instance, "pattern", "must match the pattern "+strconv.Quote(s.pattern.String()))
		}
	case int64, float64:
		return s.checkNumber(v, instance)
	case []any:
		return s.checkArray(v, instance)
	case map[string]any:
		return s.checkObject(v, instance)
	}
	return nil
}

func (s *schema) checkNumber(v any, instance []string) *schemaViolation {
	f, _ := schemaNumber(v)
	switch {
	case s.minimum != nil && f < *s.minimum:
		return s.fail(instance, "minimum", "must be at least "+formatNumber(*s.minimum))
	case s.maximum != nil && f > *s.maximum:
		return s.fail(instance, "maximum", "must be at most "+formatNumber(*s.maximum))
	case s.exclusiveMinimum != nil && f <= *s.exclusiveMinimum:
		return s.fail(instance, "exclusiveMinimum", "must be greater than "+formatNumber(*s.exclusiveMinimum))
	case s.exclusiveMaximum != nil && f >= *s.exclusiveMaximum:
		return s.fail(instance, "exclusiveMaximum", "must be less than "+formatNumber(*s.exclusiveMaximum))
	}
	if s.multipleOf != nil {
		r, ok := exactNumber(v)
		if !ok || !r.Quo(r, s.multipleOf).IsInt() {
			return s.fail(instance, "multipleOf", "must be a multiple of "+s.multipleOf.RatString())
		}
	}
	return nil
}

func (s *schema) checkArray(list []any, instance []string) *schemaViolation {
	if s.minItems >= 0 && len(list) < s.minItems {
		return s.fail(instance, "minItems", fmt.Sprintf("must hold at least %d items", s.minItems))
	}
	if s.maxItems >= 0 && len(list) > s.maxItems {
		return s.fail(instance, "maxItems", fmt.Sprintf("must hold at most %d items", s.maxItems))
	}
	if s.uniqueItems {
		for i := range list {
			for j := i + 1; j < len(list); j++ {
				if jsonEqual(list[i], list[j]) {
					return s.fail(append(instance, strconv.Itoa(j)), "uniqueItems", fmt.Sprintf("must differ from every other item; it repeats item %d", i))
				}
			}
		}
	}
	for i, item := range list {
		sub := s.items
		if i < len(s.prefixItems) {
			sub = s.prefixItems[i]
		}
		if sub != nil {
			if f := sub.check(item, append(instance, strconv.Itoa(i))); f != nil {
				return f
			}
		}
	}
	return nil
}

func (s *schema) checkObject(m map[string]any, instance []string) *schemaViolation {
	for _, name := range s.required {
		if _, ok := m[name]; !ok {
			return s.fail(instance, "required", fmt.Sprintf("must have the property %q", name))
		}
	}
	if len(s.properties) == 0 && s.additional == nil {
		return nil
	}
	// Sorted, so the violation reported is the same every time.
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sub, declared := s.properties[name]
		if !declared {
			sub = s.additional
		}
		if sub == nil {
			continue
		}
		if f := sub.check(m[name], append(instance, name)); f != nil {
			if !declared && sub.boolean && !sub.always {
				f.wants = "the schema allows no properties besides those it declares"
			}
			return f
		}
	}
	return nil
}

func (s *schema) fail(instance []string, keyword, wants string) *schemaViolation {
	at := make([]string, len(instance))
	for i, t := range instance {
		at[i] = "/" + escapeToken(t)
	}
	kw := s.at
	if keyword != "" {
		kw += "/" + keyword
	}
	return &schemaViolation{instance: strings.Join(at, ""), keyword: pointerOr(kw), wants: wants}
}

func (t typeSet) has(v any) bool {
	switch v := v.(type) {
	case nil:
		return t&typeNull != 0
	case bool:
		return t&typeBoolean != 0
	case string:
		return t&typeString != 0
	case map[string]any:
		return t&typeObject != 0
	case []any:
		return t&typeArray != 0
	case int64:
		return t&(typeNumber|typeInteger) != 0
	case float64:
		// JSON Schema counts 2.0 as an integer: it is a number with no
		// fractional part.
		return t&typeNumber != 0 || (t&typeInteger != 0 && v == math.Trunc(v))
	}
	return false
}

func (t typeSet) String() string {
	var names []string
	for _, name := range []string{"null", "boolean", "object", "array", "number", "string", "integer"} {
		if t&typeNames[name] != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if jsonEqual(x, v) {
			return true
		}
	}
	return false
}

// jsonEqual is JSON Schema's equality: numbers by value (1 equals 1.0),
// arrays item by item, objects by their members.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case int64, float64:
		fa, _ := schemaNumber(a)
		fb, ok := schemaNumber(b)
		return ok && fa == fb
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bl[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}
