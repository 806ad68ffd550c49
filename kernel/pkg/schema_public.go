package pkg

import "fmt"

// Schema is a compiled JSON Schema of the subset runx checks (see
// schema.go), for callers outside package loading: the plugin host holds
// every capability's input and output to its declared schema with it.
type Schema struct{ s *schema }

// CompileSchema compiles a JSON Schema document. A keyword outside the
// subset is an error, never ignored.
func CompileSchema(raw []byte) (*Schema, error) {
	doc, err := decodeJSONValue(raw)
	if err != nil {
		return nil, fmt.Errorf("schema is %w", err)
	}
	switch d := doc.(type) {
	case map[string]any:
		s, err := compileSchema(d)
		if err != nil {
			return nil, err
		}
		return &Schema{s: s}, nil
	case bool:
		return &Schema{s: &schema{boolean: true, always: d}}, nil
	}
	return nil, fmt.Errorf("a schema is an object or a boolean")
}

// Violation says where a value breaks its schema: Pointer is the JSON
// pointer of the failing value ("" is the whole value); Reason says what
// the broken keyword asks, never what the value holds.
type Violation struct {
	Pointer string
	Reason  string
}

func (v *Violation) String() string {
	at := v.Pointer
	if at == "" {
		at = "the value"
	}
	return at + " " + v.Reason
}

// Validate checks a JSON value (as encoding/json decodes it into any, or
// in the shared value shape) and returns the first violation, or nil.
func (s *Schema) Validate(v any) *Violation {
	bad := s.s.validate(v)
	if bad == nil {
		return nil
	}
	return &Violation{Pointer: bad.instance, Reason: fmt.Sprintf("breaks schema keyword %s (%s)", bad.keyword, bad.wants)}
}
