package mcp

import (
	"bytes"
	"encoding/json"
	"errors"

	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// argumentsObject reads a call's arguments as one JSON object ({} when
// absent).
func argumentsObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]json.RawMessage{}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, contract.Errorf(errcode.ArgumentsInvalid, "arguments must be one JSON object")
	}
	return obj, nil
}

// decodeArgs reads a turn tool's arguments strictly into v: an unknown field
// or a field of the wrong type is refused by name.
func decodeArgs(raw json.RawMessage, v any, fields []string) error {
	obj, err := argumentsObject(raw)
	if err != nil {
		return err
	}
	for name := range obj {
		if !contains(fields, name) {
			return contract.Errorf(errcode.ArgumentUnknown, "argument %q is not one this tool takes; it takes %s", name, strings.Join(fields, ", "))
		}
	}
	if len(obj) == 0 {
		return nil
	}
	b, _ := json.Marshal(obj)
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return contract.Errorf(errcode.ArgumentsInvalid, "argument %q must be %s", te.Field, typeWord(te.Type.Kind().String()))
		}
		return contract.Errorf(errcode.ArgumentsInvalid, "arguments are not valid: %v", err)
	}
	return nil
}

func typeWord(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64":
		return "an integer"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return "a " + kind
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func missing(field string) error {
	return contract.Errorf(errcode.ArgumentMissing, "argument %q is required", field)
}

func sortedNames(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
