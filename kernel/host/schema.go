package host

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/runxhq/runx/kernel/pkg/schema"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Schema refusal codes.

// schemaKey names one capability of one plugin build.
type schemaKey struct{ build, capability string }

// capabilitySchemas are one capability's compiled input and output
// schemas. They compile when the capability is first called, once per
// plugin build (a binary digest, or a first-party name and version), so a
// process that never calls a capability never pays for its schemas.
type capabilitySchemas struct {
	once    sync.Once
	in, out *schema.Schema
	err     error
}

func (c *catalog) schemasFor(build string, def *sdk.Definition) *capabilitySchemas {
	key := schemaKey{build, def.ID}
	c.mu.Lock()
	cs, ok := c.schemas[key]
	if !ok {
		cs = &capabilitySchemas{}
		c.schemas[key] = cs
	}
	c.mu.Unlock()
	cs.once.Do(func() {
		if cs.in, cs.err = compileDeclared(def.InputSchema); cs.err != nil {
			cs.err = fmt.Errorf("input schema: %w", cs.err)
			return
		}
		if cs.out, cs.err = compileDeclared(def.OutputSchema); cs.err != nil {
			cs.err = fmt.Errorf("output schema: %w", cs.err)
		}
	})
	return cs
}

func compileDeclared(raw json.RawMessage) (*schema.Schema, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return schema.Compile(raw)
}

// checkInput refuses a call whose input breaks its capability's declared
// input schema, naming the JSON pointer of the failing value; nil admits it.
func (cs *capabilitySchemas) checkInput(plugin string, call *sdk.Call) *sdk.Result {
	if cs.err != nil {
		return sdk.Refused(errcode.CapabilitySchemaUnsupported, fmt.Sprintf("plugin %q declares a schema for %s that runx cannot check (%v), so runx refuses to call it", plugin, call.Capability, cs.err))
	}
	if cs.in == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(call.Input, &v); err != nil {
		return sdk.Refused(errcode.CapabilityInputInvalid, fmt.Sprintf("the input to %s is not JSON", call.Capability))
	}
	if bad := cs.in.Validate(v); bad != nil {
		return sdk.Refused(errcode.CapabilityInputInvalid, fmt.Sprintf("the input to %s does not match its declared schema: %s (at %s)", call.Capability, bad, pointerOr(bad.Pointer)))
	}
	return nil
}

// checkOutput turns an answer whose output breaks the declared output
// schema into a typed failure: the call happened, its answer is unusable.
func (cs *capabilitySchemas) checkOutput(plugin string, call *sdk.Call, res *sdk.Result) *sdk.Result {
	if cs.out == nil || res.Status != sdk.StatusOK {
		return res
	}
	// Checked over its bytes in one pass: a large answer (a 4 MiB page of a
	// log) is never decoded whole only to be judged (schema.Schema.ValidateJSON
	// answers exactly what decoding and Validate answer).
	bad, err := cs.out.ValidateJSON(res.Output)
	if err != nil {
		return &sdk.Result{Status: sdk.StatusFailed, Code: errcode.CapabilityOutputInvalid, Message: fmt.Sprintf("plugin %q answered %s with output that is not JSON", plugin, call.Capability), DiscardWorker: res.DiscardWorker}
	}
	if bad != nil {
		return &sdk.Result{Status: sdk.StatusFailed, Code: errcode.CapabilityOutputInvalid, Message: fmt.Sprintf("plugin %q answered %s with output that does not match its declared schema: %s (at %s)", plugin, call.Capability, bad, pointerOr(bad.Pointer)), DiscardWorker: res.DiscardWorker}
	}
	return res
}

func pointerOr(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
