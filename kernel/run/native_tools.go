package run

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// nativeCall is what a kernel-owned tool is told about its call.
type nativeCall struct {
	rc   *runCtx
	step *pkg.Step
}

// nativeEntry is one tool the kernel answers itself: its one typed
// description and its implementation.
type nativeEntry struct {
	def sdk.Definition
	fn  func(ctx context.Context, c *nativeCall, inputs map[string]any) (any, *contract.ErrorBody)
}

// nativeTools are the kernel's own tools, by id: each reads the kernel's own
// state (run records, receipts, the invocation's admitted metadata), which
// no plugin may hold.
var nativeTools = map[string]*nativeEntry{}

func init() {
	for _, t := range []*nativeEntry{
		{def: runReadDefinition, fn: func(ctx context.Context, c *nativeCall, in map[string]any) (any, *contract.ErrorBody) {
			return runReadTool(ctx, c.rc, in)
		}},
		{def: receiptProveDefinition, fn: receiptProveTool},
		{def: receiptQueryDefinition, fn: receiptQueryTool},
		{def: receiptReadDefinition, fn: receiptReadTool},
		{def: observedAtDefinition, fn: observedAtTool},
	} {
		nativeTools[t.def.ID] = t
	}
}

// onlyInputs refuses an input a native tool does not declare, naming it.
func onlyInputs(tool string, inputs map[string]any, allowed ...string) *contract.ErrorBody {
	var unknown []string
	for k := range inputs {
		known := false
		for _, a := range allowed {
			known = known || k == a
		}
		if !known {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return &contract.ErrorBody{Code: "native_input_unknown", Message: fmt.Sprintf("%s takes no input %s", tool, strings.Join(unknown, ", "))}
}

// stringInput reads an optional string input, refusing any other type.
func stringInput(tool string, inputs map[string]any, name string) (string, *contract.ErrorBody) {
	v, ok := inputs[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", &contract.ErrorBody{Code: "native_input_invalid", Message: fmt.Sprintf("%s input %s must be a string", tool, name)}
	}
	return s, nil
}

// intInput reads an optional integer input within [lo, hi].
func intInput(tool string, inputs map[string]any, name string, def, lo, hi int64) (int64, *contract.ErrorBody) {
	v, ok := inputs[name]
	if !ok || v == nil {
		return def, nil
	}
	var n int64
	switch t := v.(type) {
	case float64:
		n = int64(t)
		if float64(n) != t {
			return 0, &contract.ErrorBody{Code: "native_input_invalid", Message: fmt.Sprintf("%s input %s must be an integer", tool, name)}
		}
	case int:
		n = int64(t)
	case int64:
		n = t
	case json.Number:
		var err error
		if n, err = t.Int64(); err != nil {
			return 0, &contract.ErrorBody{Code: "native_input_invalid", Message: fmt.Sprintf("%s input %s must be an integer", tool, name)}
		}
	default:
		return 0, &contract.ErrorBody{Code: "native_input_invalid", Message: fmt.Sprintf("%s input %s must be an integer", tool, name)}
	}
	if n < lo || n > hi {
		return 0, &contract.ErrorBody{Code: "native_input_invalid", Message: fmt.Sprintf("%s input %s must be between %d and %d", tool, name, lo, hi)}
	}
	return n, nil
}

// asJSONValue turns a typed document into the plain JSON value a step's
// output is.
func asJSONValue(v any) (any, *contract.ErrorBody) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, contract.BodyOf(err)
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out, nil
}
