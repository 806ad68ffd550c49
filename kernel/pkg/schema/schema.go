package schema

import (
	"fmt"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
)

// Schema is a compiled JSON Schema of the subset runx checks (see
// compile.go): package loading holds inputs and outputs to their inline
// schemas with it, and the plugin host every capability's input and output
// to its declared schema.
type Schema struct{ s *schema }

// Compile compiles a JSON Schema document. A keyword outside the subset is
// an error, never ignored.
func Compile(raw []byte) (*Schema, error) {
	doc, err := jsonvalue.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("schema is %w", err)
	}
	switch d := doc.(type) {
	case map[string]any:
		return CompileValue(d)
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

// CompileValue compiles a JSON Schema already read into the shared value
// shape (an inline `schema:` of run.yaml). A keyword outside the subset is
// an error, never ignored.
func CompileValue(doc map[string]any) (*Schema, error) {
	s, err := compileSchema(doc)
	if err != nil {
		return nil, err
	}
	return &Schema{s: s}, nil
}
