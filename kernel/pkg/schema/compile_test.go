package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
)

// jsonValue reads JSON text into the shared value shape.
func jsonValue(t *testing.T, text string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// schemaDoc reads a schema written as JSON into the shared value shape.
func schemaDoc(t *testing.T, text string) map[string]any {
	t.Helper()
	return jsonValue(t, text).(map[string]any)
}

func TestSchemaCompileRefusals(t *testing.T) {
	cases := []struct {
		name, schema     string
		pointer, keyword string
		says             string // part of the message
	}{
		// Keywords outside the subset are refused, never ignored.
		{"format", `{"type":"string","format":"email"}`, "/format", "format", "use pattern"},
		{"nested unknown keyword", `{"properties":{"a":{"patternProperties":{}}}}`, "/properties/a/patternProperties", "patternProperties", "not supported"},
		{"unknown keyword in a list", `{"anyOf":[{"type":"string"},{"minProperties":1}]}`, "/anyOf/1/minProperties", "minProperties", "not supported"},
		{"if then else", `{"if":{"type":"string"},"then":{"minLength":1}}`, "/if", "if", "not supported"},
		{"unevaluatedProperties", `{"unevaluatedProperties":false}`, "/unevaluatedProperties", "unevaluatedProperties", "not supported"},
		{"contains", `{"contains":{"type":"string"}}`, "/contains", "contains", "not supported"},
		{"$id", `{"$id":"https://example.com/s"}`, "/$id", "$id", "not supported"},
		{"$anchor", `{"$anchor":"x"}`, "/$anchor", "$anchor", "not supported"},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, "/dependentRequired", "dependentRequired", "not supported"},
		{"misspelled keyword", `{"requried":["a"]}`, "/requried", "requried", "not supported"},
		{"keyword with a slash", `{"properties":{"a/b":{"x~y":1}}}`, "/properties/a~1b/x~0y", "x~y", "not supported"},
		// References stay inside the document.
		{"remote ref", `{"$ref":"https://example.com/schema.json"}`, "/$ref", "$ref", "other documents"},
		{"file ref", `{"$ref":"file:///etc/passwd"}`, "/$ref", "$ref", "other documents"},
		{"relative ref", `{"$ref":"other.json#/$defs/a"}`, "/$ref", "$ref", "other documents"},
		{"ref to a property", `{"properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a"}}}`, "/properties/b/$ref", "$ref", "#/$defs/<name>"},
		{"ref to the root", `{"items":{"$ref":"#"}}`, "/items/$ref", "$ref", "#/$defs/<name>"},
		{"ref to a missing definition", `{"$ref":"#/$defs/nope"}`, "/$ref", "$ref", "does not define"},
		{"ref that is not a string", `{"$ref":3}`, "/$ref", "$ref", "#/$defs/name"},
		{"definitions below the top", `{"properties":{"a":{"$defs":{}}}}`, "/properties/a/$defs", "$defs", "only at the top"},
		{"definitions not a mapping", `{"$defs":[]}`, "/$defs", "$defs", "mapping"},
		{"ref loop", `{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, "/$defs/a", "", "never end"},
		{"ref loop through allOf", `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}}}`, "/$defs/", "", "never end"},
		{"another draft", `{"$schema":"http://json-schema.org/draft-07/schema#"}`, "/$schema", "$schema", "2020-12"},
		{"$schema below the top", `{"items":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}`, "/items/$schema", "$schema", "only at the top"},
		// Malformed values of supported keywords.
		{"type not a name", `{"type":3}`, "/type", "type", "type name"},
		{"unknown type", `{"type":"text"}`, "/type", "type", "not a JSON Schema type"},
		{"no types", `{"type":[]}`, "/type", "type", "at least one"},
		{"type twice", `{"type":["string","string"]}`, "/type", "type", "twice"},
		{"negative length", `{"minLength":-1}`, "/minLength", "minLength", "non-negative integer"},
		{"fractional count", `{"maxItems":1.5}`, "/maxItems", "maxItems", "non-negative integer"},
		{"count as text", `{"minItems":"2"}`, "/minItems", "minItems", "non-negative integer"},
		{"bad pattern", `{"pattern":"("}`, "/pattern", "pattern", "RE2"},
		{"lookahead", `{"pattern":"^(?=a)"}`, "/pattern", "pattern", "lookaround"},
		{"zero multipleOf", `{"multipleOf":0}`, "/multipleOf", "multipleOf", "greater than 0"},
		{"boolean exclusiveMinimum (draft 4)", `{"minimum":1,"exclusiveMinimum":true}`, "/exclusiveMinimum", "exclusiveMinimum", "number"},
		{"enum not a list", `{"enum":"a"}`, "/enum", "enum", "list"},
		{"required not names", `{"required":[1]}`, "/required", "required", "property names"},
		{"required twice", `{"required":["a","a"]}`, "/required", "required", "twice"},
		{"empty anyOf", `{"anyOf":[]}`, "/anyOf", "anyOf", "non-empty"},
		{"properties not a mapping", `{"properties":[]}`, "/properties", "properties", "mapping"},
		{"property schema not a schema", `{"properties":{"a":3}}`, "/properties/a", "", "not a schema"},
		{"uniqueItems not a boolean", `{"uniqueItems":"yes"}`, "/uniqueItems", "uniqueItems", "true or false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compileSchema(schemaDoc(t, c.schema))
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("want a *Error, got %v (%T)", err, err)
			}
			if !strings.HasPrefix(se.Pointer, c.pointer) || se.Keyword != c.keyword || !strings.Contains(se.Error(), c.says) {
				t.Fatalf("got pointer %q keyword %q: %v\nwant pointer %q keyword %q saying %q", se.Pointer, se.Keyword, se, c.pointer, c.keyword, c.says)
			}
		})
	}
}

func TestSchemaCompileAccepts(t *testing.T) {
	for _, s := range []string{
		`{}`,
		`{"title":"T","description":"D","$comment":"c","examples":[1],"default":2,"deprecated":false,"readOnly":true,"writeOnly":false}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema#"}`,
		`{"$defs":{"tree":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/tree"}}}}},"$ref":"#/$defs/tree"}`,
		`{"$defs":{"a/b":{"type":"string"}},"$ref":"#/$defs/a~1b"}`,
		`{"minLength":2.0,"maxItems":0}`,
		`{"additionalProperties":false,"items":true,"not":false}`,
	} {
		if _, err := compileSchema(schemaDoc(t, s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestSchemaValidate(t *testing.T) {
	cases := []struct {
		name, schema, value string
		instance, keyword   string // the violation's pointers; empty keyword: valid
	}{
		// type
		{"string", `{"type":"string"}`, `"a"`, "", ""},
		{"not a string", `{"type":"string"}`, `1`, "the value", "/type"},
		{"type list", `{"type":["string","null"]}`, `null`, "", ""},
		{"type list refused", `{"type":["string","null"]}`, `true`, "the value", "/type"},
		{"integer", `{"type":"integer"}`, `3`, "", ""},
		{"integral float is an integer", `{"type":"integer"}`, `3.0`, "", ""},
		{"fraction is not an integer", `{"type":"integer"}`, `3.5`, "the value", "/type"},
		{"integer is a number", `{"type":"number"}`, `3`, "", ""},
		{"object", `{"type":"object"}`, `{}`, "", ""},
		{"array is not an object", `{"type":"object"}`, `[]`, "the value", "/type"},
		// enum and const, with JSON equality
		{"enum", `{"enum":["red","green"]}`, `"red"`, "", ""},
		{"enum refused", `{"enum":["red","green"]}`, `"blue"`, "the value", "/enum"},
		{"enum numbers by value", `{"enum":[1,"1"]}`, `1.0`, "", ""},
		{"enum objects", `{"enum":[{"a":[1,2]}]}`, `{"a":[1,2]}`, "", ""},
		{"enum object differs", `{"enum":[{"a":[1,2]}]}`, `{"a":[2,1]}`, "the value", "/enum"},
		{"const", `{"const":null}`, `null`, "", ""},
		{"const refused", `{"const":false}`, `0`, "the value", "/const"},
		// objects
		{"required", `{"required":["a"]}`, `{"a":1}`, "", ""},
		{"required missing", `{"required":["a","b"]}`, `{"a":1}`, "the value", "/required"},
		{"required ignores non-objects", `{"required":["a"]}`, `"x"`, "", ""},
		{"property schema", `{"properties":{"a":{"type":"string"}}}`, `{"a":1}`, "/a", "/properties/a/type"},
		{"nested property", `{"properties":{"a":{"properties":{"b/c":{"maximum":2}}}}}`, `{"a":{"b/c":3}}`, "/a/b~1c", "/properties/a/properties/b~1c/maximum"},
		{"no additional properties", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"z":2}`, "/z", "/additionalProperties"},
		{"additional properties schema", `{"additionalProperties":{"type":"integer"}}`, `{"a":1,"b":"x"}`, "/b", "/additionalProperties/type"},
		{"additional properties allowed", `{"properties":{"a":{}},"additionalProperties":true}`, `{"z":2}`, "", ""},
		// arrays
		{"items", `{"items":{"type":"string"}}`, `["a",2]`, "/1", "/items/type"},
		{"prefixItems then items", `{"prefixItems":[{"type":"integer"}],"items":{"type":"string"}}`, `[1,"a","b"]`, "", ""},
		{"prefixItems refused", `{"prefixItems":[{"type":"integer"}],"items":false}`, `[1,2]`, "/1", "/items"},
		{"prefixItems shorter list", `{"prefixItems":[{"type":"integer"},{"type":"string"}]}`, `[1]`, "", ""},
		{"minItems", `{"minItems":2}`, `[1]`, "the value", "/minItems"},
		{"maxItems", `{"maxItems":1}`, `[1,2]`, "the value", "/maxItems"},
		{"uniqueItems", `{"uniqueItems":true}`, `[1,{"a":1},{"a":1}]`, "/2", "/uniqueItems"},
		{"uniqueItems numbers by value", `{"uniqueItems":true}`, `[1,1.0]`, "/1", "/uniqueItems"},
		{"uniqueItems distinct", `{"uniqueItems":true}`, `[1,"1",[1]]`, "", ""},
		// strings
		{"minLength counts characters", `{"minLength":3}`, `"日本語"`, "", ""},
		{"maxLength counts characters", `{"maxLength":2}`, `"日本語"`, "the value", "/maxLength"},
		{"minLength", `{"minLength":2}`, `"a"`, "the value", "/minLength"},
		{"pattern unanchored", `{"pattern":"b+"}`, `"abbc"`, "", ""},
		{"pattern refused", `{"pattern":"^[a-z]+$"}`, `"ab1"`, "the value", "/pattern"},
		// numbers
		{"minimum", `{"minimum":2}`, `2`, "", ""},
		{"below minimum", `{"minimum":2}`, `1.5`, "the value", "/minimum"},
		{"maximum", `{"maximum":2.5}`, `3`, "the value", "/maximum"},
		{"exclusiveMinimum", `{"exclusiveMinimum":2}`, `2`, "the value", "/exclusiveMinimum"},
		{"exclusiveMaximum", `{"exclusiveMaximum":2}`, `1.99`, "", ""},
		{"multipleOf", `{"multipleOf":3}`, `9`, "", ""},
		{"not a multiple", `{"multipleOf":3}`, `10`, "the value", "/multipleOf"},
		{"decimal multipleOf", `{"multipleOf":0.1}`, `0.3`, "", ""},
		{"decimal multipleOf refused", `{"multipleOf":0.1}`, `0.35`, "the value", "/multipleOf"},
		{"number keywords ignore strings", `{"minimum":5}`, `"1"`, "", ""},
		// combinators
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1`, "", ""},
		{"anyOf refused", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `true`, "the value", "/anyOf"},
		{"oneOf", `{"oneOf":[{"minimum":1},{"maximum":0}]}`, `5`, "", ""},
		{"oneOf matching two", `{"oneOf":[{"minimum":1},{"minimum":2}]}`, `5`, "the value", "/oneOf"},
		{"oneOf matching none", `{"oneOf":[{"minimum":10},{"maximum":0}]}`, `5`, "the value", "/oneOf"},
		{"allOf", `{"allOf":[{"minimum":1},{"maximum":3}]}`, `4`, "the value", "/allOf/1"},
		{"not", `{"not":{"type":"null"}}`, `null`, "the value", "/not"},
		{"not passes", `{"not":{"type":"null"}}`, `1`, "", ""},
		{"false schema", `{"properties":{"a":false}}`, `{"a":1}`, "/a", "/properties/a"},
		// references
		{"ref", `{"$defs":{"name":{"type":"string","minLength":1}},"properties":{"n":{"$ref":"#/$defs/name"}}}`, `{"n":""}`, "/n", "/$defs/name/minLength"},
		{"ref with siblings", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":1}`, `"ab"`, "the value", "/maxLength"},
		{"recursive ref", `{"$defs":{"t":{"type":"object","properties":{"kids":{"items":{"$ref":"#/$defs/t"}}}}},"$ref":"#/$defs/t"}`, `{"kids":[{"kids":[1]}]}`, "/kids/0/kids/0", "/$defs/t/type"},
		{"annotations do nothing", `{"description":"x","default":5,"examples":["no"]}`, `true`, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := compileSchema(schemaDoc(t, c.schema))
			if err != nil {
				t.Fatal(err)
			}
			f := s.validate(jsonValue(t, c.value))
			switch {
			case c.keyword == "" && f != nil:
				t.Fatalf("refused: %s", f)
			case c.keyword != "" && f == nil:
				t.Fatalf("accepted; want a violation of %s at %s", c.keyword, c.instance)
			case c.keyword != "":
				at := f.instance
				if at == "" {
					at = "the value"
				}
				if at != c.instance || f.keyword != c.keyword {
					t.Fatalf("violation %s; want %s at %s", f, c.keyword, c.instance)
				}
			}
		})
	}
}

// A violation never quotes the value, which may be a secret.
func TestSchemaViolationDoesNotQuoteTheValue(t *testing.T) {
	for _, c := range []struct{ schema, value string }{
		{`{"enum":["a"]}`, `"hunter2-secret"`},
		{`{"pattern":"^x"}`, `"hunter2-secret"`},
		{`{"maxLength":3}`, `"hunter2-secret"`},
		{`{"const":"a"}`, `"hunter2-secret"`},
		{`{"items":{"type":"integer"}}`, `["hunter2-secret"]`},
		{`{"uniqueItems":true}`, `["hunter2-secret","hunter2-secret"]`},
	} {
		s, err := compileSchema(schemaDoc(t, c.schema))
		if err != nil {
			t.Fatal(err)
		}
		f := s.validate(jsonValue(t, c.value))
		if f == nil || strings.Contains(f.String(), "hunter2") {
			t.Errorf("%s on %s: %v", c.schema, c.value, f)
		}
	}
}
