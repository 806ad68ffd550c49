package pkg

import (
	"fmt"
	"math"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/kernel/pkg/schema"
)

// schema returns the compiled schema, compiling a hand-built spec's on use
// (a spec from Load was compiled there, so concurrent binds share it safely).
func (s *InputSpec) schema() (*schema.Schema, error) {
	if s.compiled != nil || s.Schema == nil {
		return s.compiled, nil
	}
	return schema.CompileValue(s.Schema)
}

// AcceptsNull reports whether a null is a value for this input: a json input,
// or one whose schema admits null. Elsewhere a null means "nothing".
func (s *InputSpec) AcceptsNull() bool {
	if s.Type == TypeJSON {
		return true
	}
	sch, err := s.schema()
	return err == nil && sch != nil && sch.Validate(nil) == nil
}

// check validates v (in the shared value shape) against the declared type and
// schema and returns it in the type's Go shape: integer int64, number
// float64. Its errors describe the problem, never the value.
func (s *InputSpec) check(v any) (any, error) {
	if v == nil {
		if !s.AcceptsNull() {
			return nil, fmt.Errorf("must be %s, not null", typeNoun(s.Type))
		}
	} else {
		var err error
		if v, err = convertToType(s.Type, v); err != nil {
			return nil, err
		}
	}
	sch, err := s.schema()
	if err != nil {
		return nil, fmt.Errorf("has a schema that does not compile: %v", err)
	}
	if sch != nil {
		if f := sch.Validate(v); f != nil {
			return nil, fmt.Errorf("does not match its schema: %s", f)
		}
	}
	return v, nil
}

func convertToType(typ string, v any) (any, error) {
	ok := false
	switch typ {
	case TypeString:
		_, ok = v.(string)
	case TypeBoolean:
		_, ok = v.(bool)
	case TypeObject:
		_, ok = v.(map[string]any)
	case TypeArray:
		_, ok = v.([]any)
	case TypeJSON:
		ok = true
	case TypeInteger:
		switch n := v.(type) {
		case int64:
			return n, nil
		case float64:
			if n != math.Trunc(n) {
				return nil, fmt.Errorf("must be an integer, not a fraction")
			}
			if math.Abs(n) > jsonvalue.MaxSafeInteger {
				return nil, fmt.Errorf("is beyond ±(2^53-1); pass large ids and amounts as strings")
			}
			return int64(n), nil
		}
	case TypeNumber:
		switch n := v.(type) {
		case int64:
			return float64(n), nil
		case float64:
			return n, nil
		}
	default:
		if !ValidPacketID(typ) {
			return nil, fmt.Errorf("has unknown type %q", typ)
		}
		ok = true // a packet, or a reference to one: kernel/packet checks it
	}
	if !ok {
		return nil, fmt.Errorf("must be %s, not %s", typeNoun(typ), jsonvalue.Kind(v))
	}
	return v, nil
}

func typeNoun(typ string) string {
	switch typ {
	case TypeString:
		return "a string"
	case TypeInteger:
		return "an integer"
	case TypeNumber:
		return "a number"
	case TypeBoolean:
		return "a boolean"
	case TypeObject:
		return "an object"
	case TypeArray:
		return "an array"
	}
	if ValidPacketID(typ) {
		return "a packet " + typ + " or a reference to one"
	}
	return "a JSON value"
}

// CheckSchema holds an output value to the output's declared schema, if it
// has one. The error names the value's pointer and the keyword, never the
// value.
func (o *OutputSpec) CheckSchema(v any) error {
	sch := o.compiled
	if sch == nil && o.Schema != nil {
		var err error
		if sch, err = schema.CompileValue(o.Schema); err != nil {
			return err
		}
	}
	if sch == nil {
		return nil
	}
	if viol := sch.Validate(v); viol != nil {
		return fmt.Errorf("does not match its schema: %s", viol.String())
	}
	return nil
}
