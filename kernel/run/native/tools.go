package native

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// KernelOwner names the kernel as the owner of the tools it answers itself
// (they read run records, which no plugin may hold).
const KernelOwner = "runx-kernel"

// Tool is one tool the kernel answers itself: its one typed description
// and its implementation.
type Tool struct {
	def    sdk.Definition
	answer func(ctx context.Context, c *Call, inputs map[string]any) (any, *contract.ErrorBody)
}

// Definition is the tool's description: what `runx tool inspect` shows and
// what a turn's tool list offers.
func (t *Tool) Definition() sdk.Definition { return t.def }

// Answer runs the tool for one call: its output, or why it failed.
func (t *Tool) Answer(ctx context.Context, c *Call, inputs map[string]any) (any, *contract.ErrorBody) {
	return t.answer(ctx, c, inputs)
}

// Lookup is the kernel-owned tool of that id, or nil: the kernel answers
// it itself, and no plugin is asked.
func Lookup(id string) *Tool { return tools[id] }

// Definitions describes every tool the kernel answers itself, by id.
func Definitions() []sdk.Definition {
	defs := make([]sdk.Definition, 0, len(tools))
	for _, t := range tools {
		defs = append(defs, t.def)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].ID < defs[j].ID })
	return defs
}

// tools are the kernel's own tools, by id: each reads the kernel's own
// state (run records, receipts, the invocation's admitted metadata), which
// no plugin may hold.
var tools = map[string]*Tool{}

func init() {
	for _, t := range []*Tool{
		{def: runReadDefinition, answer: runReadTool},
		{def: receiptProveDefinition, answer: receiptProveTool},
		{def: receiptQueryDefinition, answer: receiptQueryTool},
		{def: receiptReadDefinition, answer: receiptReadTool},
		{def: observedAtDefinition, answer: observedAtTool},
	} {
		tools[t.def.ID] = t
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
	return &contract.ErrorBody{Code: errcode.NativeInputUnknown, Message: fmt.Sprintf("%s takes no input %s", tool, strings.Join(unknown, ", "))}
}

// stringInput reads an optional string input, refusing any other type.
func stringInput(tool string, inputs map[string]any, name string) (string, *contract.ErrorBody) {
	v, ok := inputs[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", &contract.ErrorBody{Code: errcode.NativeInputInvalid, Message: fmt.Sprintf("%s input %s must be a string", tool, name)}
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
			return 0, &contract.ErrorBody{Code: errcode.NativeInputInvalid, Message: fmt.Sprintf("%s input %s must be an integer", tool, name)}
		}
	case int:
		n = int64(t)
	case int64:
		n = t
	case json.Number:
		var err error
		if n, err = t.Int64(); err != nil {
			return 0, &contract.ErrorBody{Code: errcode.NativeInputInvalid, Message: fmt.Sprintf("%s input %s must be an integer", tool, name)}
		}
	default:
		return 0, &contract.ErrorBody{Code: errcode.NativeInputInvalid, Message: fmt.Sprintf("%s input %s must be an integer", tool, name)}
	}
	if n < lo || n > hi {
		return 0, &contract.ErrorBody{Code: errcode.NativeInputInvalid, Message: fmt.Sprintf("%s input %s must be between %d and %d", tool, name, lo, hi)}
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
