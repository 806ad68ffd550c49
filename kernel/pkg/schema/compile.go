package schema

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// runx checks the optional `schema:` of inputs and outputs with its own small
// validator for a subset of JSON Schema 2020-12 (docs/decisions/packages.md,
// "run.yaml's schema validator": the general library it replaces compiled
// every draft's meta-schemas in init, in every runx process). The subset:
//
//	type (a name or a list of names), enum, const,
//	properties, required, additionalProperties (true, false or a schema),
//	items, prefixItems, minItems, maxItems, uniqueItems,
//	minLength, maxLength (in Unicode code points), pattern (RE2, unanchored),
//	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf,
//	anyOf, oneOf, allOf, not,
//	$defs (at the top level) and $ref to "#/$defs/<name>",
//	$schema naming draft 2020-12.
//
// Annotations (title, description, $comment, examples, default, deprecated,
// readOnly, writeOnly) are accepted and have no effect, as in JSON Schema.
// Any other keyword is refused when the package loads, never ignored: a
// schema must not look stricter than what runx checks.

// schemaKeywords is the list a refusal of an unsupported keyword names.
const schemaKeywords = "type, enum, const, properties, required, additionalProperties, items, prefixItems, " +
	"minItems, maxItems, uniqueItems, minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum, " +
	"exclusiveMaximum, multipleOf, anyOf, oneOf, allOf, not, $defs, $ref and $schema"

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

var schemaAnnotations = map[string]bool{
	"title": true, "description": true, "$comment": true, "examples": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// Error is why an inline schema cannot be used: a keyword runx does not
// check, or a keyword whose value is malformed. Pointer is the JSON pointer
// of the keyword in the schema. A load refusal for a bad schema wraps one, so
// errors.As finds it.
type Error struct {
	Pointer string
	Keyword string
	Reason  string
}

func (e *Error) Error() string {
	if e.Keyword == "" {
		return fmt.Sprintf("%s %s", e.Pointer, e.Reason)
	}
	return fmt.Sprintf("keyword %q at %s %s", e.Keyword, e.Pointer, e.Reason)
}

// schema is one compiled schema (or subschema).
type schema struct {
	at string // JSON pointer of this schema in its document, "" for the top

	always, boolean bool // a boolean schema: always says whether it accepts

	types            typeSet
	enum             []any
	hasEnum          bool
	constant         any
	hasConst         bool
	properties       map[string]*schema
	required         []string
	additional       *schema
	prefixItems      []*schema
	items            *schema
	minItems         int
	maxItems         int
	uniqueItems      bool
	minLength        int
	maxLength        int
	pattern          *regexp.Regexp
	minimum          *float64
	maximum          *float64
	exclusiveMinimum *float64
	exclusiveMaximum *float64
	multipleOf       *big.Rat
	anyOf            []*schema
	oneOf            []*schema
	allOf            []*schema
	not              *schema
	ref              *schema
	refText          string
}

// typeSet holds JSON Schema type names as bits.
type typeSet uint8

const (
	typeNull typeSet = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeString
	typeInteger
)

var typeNames = map[string]typeSet{
	"null": typeNull, "boolean": typeBoolean, "object": typeObject, "array": typeArray,
	"number": typeNumber, "string": typeString, "integer": typeInteger,
}

// compileSchema compiles an inline JSON Schema of the subset, refusing any
// keyword outside it and any $ref that leaves the document.
func compileSchema(doc map[string]any) (*schema, error) {
	c := &schemaCompiler{defs: map[string]*schema{}}
	if raw, ok := doc["$defs"]; ok {
		defs, ok := raw.(map[string]any)
		if !ok {
			return nil, &Error{Pointer: "/$defs", Keyword: "$defs", Reason: "must be a mapping of names to schemas"}
		}
		// Compile every definition before anything refers to one.
		names := sortedNames(defs)
		for _, name := range names {
			c.defs[name] = &schema{at: "/$defs/" + escapeToken(name)}
		}
		for _, name := range names {
			if err := c.fill(c.defs[name], defs[name], false); err != nil {
				return nil, err
			}
		}
	}
	top := &schema{}
	if err := c.fill(top, doc, true); err != nil {
		return nil, err
	}
	state := map[*schema]uint8{}
	for _, r := range c.refs {
		if err := checkRefLoop(r, state); err != nil {
			return nil, err
		}
	}
	return top, nil
}

type schemaCompiler struct {
	defs map[string]*schema
	refs []*schema // schemas holding a $ref, checked for loops once all are compiled
}

func sortedNames(m map[string]any) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// compile compiles the schema raw found at pointer at.
func (c *schemaCompiler) compile(raw any, at string) (*schema, error) {
	s := &schema{at: at}
	return s, c.fill(s, raw, false)
}

// fill compiles raw (a boolean or a mapping) into s. top is set for the
// document itself, the only place $defs and $schema may appear.
func (c *schemaCompiler) fill(s *schema, raw any, top bool) error {
	if b, ok := raw.(bool); ok {
		s.boolean, s.always = true, b
		return nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return &Error{Pointer: pointerOr(s.at), Reason: "is not a schema: a schema is a mapping of keywords, or true or false"}
	}
	s.minItems, s.maxItems, s.minLength, s.maxLength = -1, -1, -1, -1
	for _, kw := range sortedNames(m) {
		if err := c.keyword(s, kw, m[kw], top); err != nil {
			return err
		}
	}
	return nil
}

func (c *schemaCompiler) keyword(s *schema, kw string, v any, top bool) error {
	at := s.at + "/" + escapeToken(kw)
	bad := func(reason string, args ...any) error {
		return &Error{Pointer: at, Keyword: kw, Reason: fmt.Sprintf(reason, args...)}
	}
	var err error
	switch kw {
	case "type":
		s.types, err = compileTypes(v)
		if err != nil {
			return bad("%v", err)
		}
	case "enum":
		list, ok := v.([]any)
		if !ok {
			return bad("must be a list of values")
		}
		s.enum, s.hasEnum = list, true
	case "const":
		s.constant, s.hasConst = v, true
	case "properties":
		props, ok := v.(map[string]any)
		if !ok {
			return bad("must be a mapping of property names to schemas")
		}
		s.properties = make(map[string]*schema, len(props))
		for _, name := range sortedNames(props) {
			if s.properties[name], err = c.compile(props[name], at+"/"+escapeToken(name)); err != nil {
				return err
			}
		}
	case "required":
		list, ok := v.([]any)
		if !ok {
			return bad("must be a list of property names")
		}
		for _, item := range list {
			name, ok := item.(string)
			if !ok {
				return bad("must be a list of property names")
			}
			if containsString(s.required, name) {
				return bad("names %q twice", name)
			}
			s.required = append(s.required, name)
		}
	case "additionalProperties":
		s.additional, err = c.compile(v, at)
	case "items":
		s.items, err = c.compile(v, at)
	case "not":
		s.not, err = c.compile(v, at)
	case "prefixItems":
		s.prefixItems, err = c.compileList(v, at, bad)
	case "anyOf":
		s.anyOf, err = c.compileList(v, at, bad)
	case "oneOf":
		s.oneOf, err = c.compileList(v, at, bad)
	case "allOf":
		s.allOf, err = c.compileList(v, at, bad)
	case "minItems", "maxItems", "minLength", "maxLength":
		n, ok := schemaCount(v)
		if !ok {
			return bad("must be a non-negative integer")
		}
		switch kw {
		case "minItems":
			s.minItems = n
		case "maxItems":
			s.maxItems = n
		case "minLength":
			s.minLength = n
		default:
			s.maxLength = n
		}
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return bad("must be true or false")
		}
		s.uniqueItems = b
	case "pattern":
		text, ok := v.(string)
		if !ok {
			return bad("must be a regular expression")
		}
		if s.pattern, err = regexp.Compile(text); err != nil {
			return bad("does not compile as an RE2 regular expression (lookaround and backreferences are not supported): %v", err)
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		f, ok := schemaNumber(v)
		if !ok {
			return bad("must be a number")
		}
		switch kw {
		case "minimum":
			s.minimum = &f
		case "maximum":
			s.maximum = &f
		case "exclusiveMinimum":
			s.exclusiveMinimum = &f
		default:
			s.exclusiveMaximum = &f
		}
	case "multipleOf":
		r, ok := exactNumber(v)
		if !ok || r.Sign() <= 0 {
			return bad("must be a number greater than 0")
		}
		s.multipleOf = r
	case "$ref":
		text, ok := v.(string)
		if !ok {
			return bad("must be a reference such as \"#/$defs/name\"")
		}
		return c.resolveRef(s, text, bad)
	case "$defs":
		if !top {
			return bad("may appear only at the top of the schema; move the definition there")
		}
	case "$schema":
		text, _ := v.(string)
		if !top {
			return bad("may appear only at the top of the schema")
		}
		if strings.TrimSuffix(text, "#") != draft2020 {
			return bad("names %q; runx reads JSON Schema draft 2020-12 (%s) only", text, draft2020)
		}
	default:
		if schemaAnnotations[kw] {
			return nil
		}
		if kw == "format" {
			return bad("is not checked by runx, and a schema must not look stricter than it is; use pattern")
		}
		return bad("is not supported; runx checks %s", schemaKeywords)
	}
	return err
}

func (c *schemaCompiler) compileList(v any, at string, bad func(string, ...any) error) ([]*schema, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, bad("must be a non-empty list of schemas")
	}
	out := make([]*schema, len(list))
	for i, item := range list {
		var err error
		if out[i], err = c.compile(item, at+"/"+strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// resolveRef binds a $ref: only "#/$defs/<name>" of the same document, since
// loading a package must not read files or reach the network.
func (c *schemaCompiler) resolveRef(s *schema, text string, bad func(string, ...any) error) error {
	name, ok := strings.CutPrefix(text, "#/$defs/")
	if !ok {
		if !strings.HasPrefix(text, "#") {
			return bad("refers to another document (%s); schemas may not reference other documents: inline the definition under $defs", text)
		}
		return bad("is %q; a reference names a definition of this schema, \"#/$defs/<name>\"", text)
	}
	name = unescapeToken(name)
	target, ok := c.defs[name]
	if !ok {
		return bad("names %q, which $defs does not define", name)
	}
	s.ref, s.refText = target, text
	c.refs = append(c.refs, s)
	return nil
}

// checkRefLoop refuses a $ref that comes back to itself without descending
// into the value (through $ref, allOf, anyOf, oneOf or not), which could
// never finish checking anything. state marks schemas being walked (1) and
// done (2), so each is walked once.
func checkRefLoop(s *schema, state map[*schema]uint8) error {
	switch state[s] {
	case 1:
		return &Error{Pointer: pointerOr(s.at), Reason: "is reached again through $ref without descending into the value, so checking it would never end"}
	case 2:
		return nil
	}
	state[s] = 1
	next := append(append(append([]*schema{}, s.allOf...), s.anyOf...), s.oneOf...)
	if s.ref != nil {
		next = append(next, s.ref)
	}
	if s.not != nil {
		next = append(next, s.not)
	}
	for _, n := range next {
		if err := checkRefLoop(n, state); err != nil {
			return err
		}
	}
	state[s] = 2
	return nil
}

func compileTypes(v any) (typeSet, error) {
	var names []any
	switch v := v.(type) {
	case string:
		names = []any{v}
	case []any:
		if len(v) == 0 {
			return 0, fmt.Errorf("must name at least one type")
		}
		names = v
	default:
		return 0, fmt.Errorf("must be a type name or a list of them")
	}
	var set typeSet
	for _, n := range names {
		name, _ := n.(string)
		t, ok := typeNames[name]
		if !ok {
			return 0, fmt.Errorf("names %v, which is not a JSON Schema type (null, boolean, object, array, number, string, integer)", n)
		}
		if set&t != 0 {
			return 0, fmt.Errorf("names %q twice", name)
		}
		set |= t
	}
	return set, nil
}

// schemaCount reads a non-negative integer keyword (2.0 counts, as JSON
// Schema allows).
func schemaCount(v any) (int, bool) {
	switch n := v.(type) {
	case int64:
		return int(n), n >= 0 && n <= math.MaxInt32
	case float64:
		return int(n), n >= 0 && n == math.Trunc(n) && n <= math.MaxInt32
	}
	return 0, false
}

func schemaNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// exactNumber reads a number as the decimal it is written as, so 0.3 is a
// multiple of 0.1 as a reader of the document expects, not as binary
// floating point has it.
func exactNumber(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(n), true
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, false
		}
		return new(big.Rat).SetString(strconv.FormatFloat(n, 'g', -1, 64))
	}
	return nil, false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func pointerOr(at string) string {
	if at == "" {
		return "/"
	}
	return at
}

// escapeToken escapes one JSON pointer token (RFC 6901).
func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func unescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}
