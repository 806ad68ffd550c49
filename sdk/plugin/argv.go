package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNoArgv is a definition that names no argv input.
var ErrNoArgv = errors.New("the capability names no argv input")

// Argv is the exact argv a call of this capability executes, read from its
// input as ArgvInput (and ArgsInput) describe: the floor shows it on a gate
// and standing approvals match it. An input without the argv it promises is
// an error, so a caller can fail closed.
func (d *Definition) Argv(input []byte) ([]string, error) {
	if d.ArgvInput == "" {
		return nil, ErrNoArgv
	}
	var doc any
	if err := json.Unmarshal(input, &doc); err != nil {
		return nil, fmt.Errorf("input is not JSON: %w", err)
	}
	head, err := pointerValue(doc, d.ArgvInput)
	if err != nil {
		return nil, err
	}
	if d.ArgsInput == "" {
		return stringArray(head, d.ArgvInput)
	}
	command, ok := head.(string)
	if !ok || command == "" {
		return nil, fmt.Errorf("%s is not a command (a non-empty string)", d.ArgvInput)
	}
	argv := []string{command}
	rest, err := pointerValue(doc, d.ArgsInput)
	if errors.Is(err, errPointerAbsent) {
		return argv, nil // no arguments
	}
	if err != nil {
		return nil, err
	}
	args, err := stringArray(rest, d.ArgsInput)
	if err != nil {
		return nil, err
	}
	return append(argv, args...), nil
}

var errPointerAbsent = errors.New("absent")

// pointerValue resolves an RFC 6901 pointer.
func pointerValue(doc any, pointer string) (any, error) {
	if pointer == "" {
		return doc, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer", pointer)
	}
	cur := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("%s: %w", pointer, errPointerAbsent)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("%s: %w", pointer, errPointerAbsent)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%s: %w", pointer, errPointerAbsent)
		}
	}
	return cur, nil
}

func stringArray(v any, pointer string) ([]string, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an array of strings", pointer)
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("%s/%d is not a string", pointer, i)
		}
		out[i] = s
	}
	return out, nil
}
