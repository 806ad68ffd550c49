package plugin

import (
	"encoding/json"
	"strings"
)

// schema checks that raw is a JSON Schema object whose structural keywords
// have the shapes JSON Schema gives them, and returns it decoded. It does
// not compile the schema (a host compiles what it validates with; the
// conformance suite compiles every schema): it is cheap enough for every
// plugin start and needs no schema library.
func (c *checker) schema(what string, raw json.RawMessage) map[string]any {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		c.addf("%s is not JSON: %v", what, err)
		return nil
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		c.addf("%s is not a JSON Schema object", what)
		return nil
	}
	c.schemaNode(what, obj)
	return obj
}

func (c *checker) schemaNode(at string, node map[string]any) {
	switch t := node["type"].(type) {
	case nil:
	case string:
		if !schemaTypes[t] {
			c.addf("%s: type %q is not a JSON Schema type", at, t)
		}
	case []any:
		for _, v := range t {
			if s, ok := v.(string); !ok || !schemaTypes[s] {
				c.addf("%s: type %v is not a JSON Schema type", at, v)
			}
		}
	default:
		c.addf("%s: type must be a string or an array of strings", at)
	}
	if req, has := node["required"]; has {
		list, ok := req.([]any)
		for _, v := range list {
			if _, isString := v.(string); !isString {
				ok = false
			}
		}
		if !ok {
			c.addf("%s: required must be an array of strings", at)
		}
	}
	for _, kw := range []string{"properties", "patternProperties", "$defs", "definitions"} {
		if v, has := node[kw]; has {
			props, ok := v.(map[string]any)
			if !ok {
				c.addf("%s: %s must be an object", at, kw)
				continue
			}
			for name, sub := range props {
				c.subschema(at+"/"+kw+"/"+name, sub)
			}
		}
	}
	for _, kw := range []string{"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"} {
		if v, has := node[kw]; has {
			c.subschema(at+"/"+kw, v)
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		if v, has := node[kw]; has {
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				c.addf("%s: %s must be a non-empty array of schemas", at, kw)
				continue
			}
			for _, sub := range list {
				c.subschema(at+"/"+kw, sub)
			}
		}
	}
}

// subschema is a schema position: an object or a boolean.
func (c *checker) subschema(at string, v any) {
	switch s := v.(type) {
	case bool:
	case map[string]any:
		c.schemaNode(at, s)
	default:
		c.addf("%s is neither a schema object nor a boolean", at)
	}
}

// pointer checks an RFC 6901 pointer (a "*" segment stands for every item
// of an array) and, where the input schema declares the properties on its
// way, that it names one of them.
func (c *checker) pointer(id, what, p string, input map[string]any) {
	if !strings.HasPrefix(p, "/") {
		c.addf("%s: %s %q is not a JSON pointer to an input (it must start with /)", id, what, p)
		return
	}
	node := input
	for _, raw := range strings.Split(p[1:], "/") {
		seg, ok := unescapePointer(raw)
		if !ok {
			c.addf("%s: %s %q holds a ~ that is neither ~0 nor ~1", id, what, p)
			return
		}
		if seg == "" {
			c.addf("%s: %s %q has an empty segment", id, what, p)
			return
		}
		if node == nil {
			continue
		}
		if raw == "*" {
			node, _ = node["items"].(map[string]any)
			continue
		}
		props, declared := node["properties"].(map[string]any)
		if !declared {
			node = nil
			continue
		}
		next, found := props[seg]
		if !found {
			c.addf("%s: %s %q names %q, which the input schema does not declare", id, what, p, seg)
			return
		}
		node, _ = next.(map[string]any)
	}
}

func unescapePointer(seg string) (string, bool) {
	for i := 0; i < len(seg); i++ {
		if seg[i] == '~' && (i+1 == len(seg) || (seg[i+1] != '0' && seg[i+1] != '1')) {
			return "", false
		}
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(seg), true
}
