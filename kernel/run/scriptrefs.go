package run

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/canon"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
)

// ScriptInputInlineMax is the most of one input a script's module is given
// inline, as canonical JSON. An input past it reaches the module as a
// reference, {"$ref": "input/<name>"}, and an array input past it as a list
// of references, one an item ({"$ref": "input/<name>/<i>"}), so a batch of
// any size is a list the script walks with ctx.read, each read a request
// the run records and max_calls bounds.
const ScriptInputInlineMax = 64 << 10

// CodeScriptReferenceUnknown is a reference the step never gave its script:
// a read of it rejects, and a script output holding it fails the step.
const CodeScriptReferenceUnknown = "script_reference_unknown"

// scriptRefs are the step's inputs its script was given by reference, by
// reference string. A reference names a value of this step only: it
// carries no authority and reaches nothing the step's inputs did not hold.
type scriptRefs map[string]any

// scriptInputs is the input a script's module is given, with every input
// past ScriptInputInlineMax replaced by references, and those references.
func scriptInputs(inputs map[string]any) (map[string]any, scriptRefs, error) {
	refs := scriptRefs{}
	out := make(map[string]any, len(inputs))
	for name, v := range inputs {
		raw, err := canon.Canonical(v)
		if err != nil {
			return nil, nil, err
		}
		if len(raw) <= ScriptInputInlineMax {
			out[name] = v
			continue
		}
		if list, ok := v.([]any); ok {
			items := make([]any, len(list))
			for i, item := range list {
				ref := "input/" + name + "/" + strconv.Itoa(i)
				refs[ref] = item
				items[i] = map[string]any{"$ref": ref}
			}
			out[name] = items
			continue
		}
		ref := "input/" + name
		refs[ref] = v
		out[name] = map[string]any{"$ref": ref}
	}
	return out, refs, nil
}

// refOf reports whether v is a reference: an object whose one member is a
// string $ref.
func refOf(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	ref, ok := m["$ref"].(string)
	return ref, ok
}

// substitute gives v with every reference the step gave its script
// replaced by the content it names: a reference in a call's input gives
// the callee its content, with no read. Other values, and an object that
// merely looks like a reference to something else, are left as they are.
func (r scriptRefs) substitute(v any) any {
	if len(r) == 0 {
		return v
	}
	out, _ := r.resolve(v, "", false)
	return out
}

// resolveOutput gives a script's output with every reference at any depth
// replaced by its content; a reference to nothing the step gave fails the
// step, naming where the output holds it.
func (r scriptRefs) resolveOutput(v any) (any, *contract.ErrorBody) {
	out, at := r.resolve(v, "", true)
	if at != "" {
		return nil, &contract.ErrorBody{Code: CodeScriptReferenceUnknown, Message: fmt.Sprintf("the script's output holds a reference at %s that names no input of the step; a script returns only references it was given", at)}
	}
	return out, nil
}

// resolve walks v; strict stops at the first unknown reference and answers
// its JSON pointer.
func (r scriptRefs) resolve(v any, pointer string, strict bool) (any, string) {
	if ref, ok := refOf(v); ok {
		if content, known := r[ref]; known {
			return content, ""
		}
		if strict {
			return nil, orRoot(pointer)
		}
		return v, ""
	}
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first unknown reference named is the same every time
		out := make(map[string]any, len(t))
		for _, k := range keys {
			item, at := r.resolve(t[k], pointer+"/"+escapePointer(k), strict)
			if at != "" {
				return nil, at
			}
			out[k] = item
		}
		return out, ""
	case []any:
		out := make([]any, len(t))
		for i, item := range t {
			resolved, at := r.resolve(item, pointer+"/"+strconv.Itoa(i), strict)
			if at != "" {
				return nil, at
			}
			out[i] = resolved
		}
		return out, ""
	}
	return v, ""
}

func orRoot(pointer string) string {
	if pointer == "" {
		return "/"
	}
	return pointer
}

func escapePointer(token string) string {
	out := make([]byte, 0, len(token))
	for i := 0; i < len(token); i++ {
		switch token[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, token[i])
		}
	}
	return string(out)
}

// scriptRead settles a ctx.read of a reference: the content the step gave
// by that reference, recorded beside what was asked so a replay is held to
// asking the same; a reference the step never gave rejects the read. A read
// runs nothing and commits no receipt of its own.
func (rc *runCtx) scriptRead(ctx context.Context, step *pkg.Step, address string, p scriptPending, refs scriptRefs) error {
	digest := mustDigestRaw(p.Input)
	var doc struct {
		Ref string `json:"$ref"`
	}
	_ = json.Unmarshal(p.Input, &doc)
	rec := &journal.Step{RunID: rc.rec.RunID, Address: address, StepID: step.ID}
	content, ok := refs[doc.Ref]
	var err error
	if ok {
		rec.Status = contract.StepSuccess
		rec.Output, err = json.Marshal(map[string]any{"kind": "read", "input_digest": digest, "output": content})
	} else {
		rec.Status = contract.StepFailed
		rec.Error, err = json.Marshal(&contract.ErrorBody{Code: CodeScriptReferenceUnknown,
			Message: fmt.Sprintf("ctx.read: %q names no input this step gave its script", doc.Ref),
			Detail:  map[string]any{"kind": "read", "input_digest": digest}})
	}
	if err != nil {
		return err
	}
	return rc.e.Journal.RecordStep(durable(ctx), rec)
}
