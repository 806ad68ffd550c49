package jsworker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/runxhq/runx/plugins/jsworker/engine"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Name is the plugin's name; its capability ids are js.*.
const Name = "js"

// Version is the worker's version; the kernel records it in receipts.
const Version = "0.1.0"

// Capability runs one deterministic module.
const Capability = "js.module"

// ScriptCapability runs one invocation of a script: to its output, or to the
// requests it suspends on (script.go).
const ScriptCapability = "js.script"

// Request is js.module's input.
type Request struct {
	Entry       string            `json:"entry"`
	Files       map[string]string `json:"files"`
	Input       json.RawMessage   `json:"input"`
	Environment map[string]string `json:"environment"`
	TimeoutMS   int64             `json:"timeout_ms"`
	// Requires are the helpers the module declares it needs; every one
	// must be a helper this worker installs (the schema's enum), so a
	// module never runs without one it counts on.
	Requires []string `json:"requires,omitempty"`
}

// decodeStrict decodes a request, refusing any field the worker would not
// carry out: a field it accepted and ignored would be a promise it breaks.
func decodeStrict(raw []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the request")
	}
	return nil
}

// Plugin serves js.module and js.script.
type Plugin struct{}

// New returns the worker plugin. It has no effect on the process: the
// kernel calls it to read Info in its own process.
func New() *Plugin {
	return &Plugin{}
}

// Info describes js.module and js.script.
func (*Plugin) Info() plugin.Info {
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{{
		ID: Capability,
		Summary: "Run a deterministic JavaScript module: (input, {environment}) -> JSON, with no filesystem, " +
			"network, process, environment, host clock or host randomness.",
		InputSchema:  json.RawMessage(requestSchema),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		Effect:       plugin.EffectNone,
		Approval:     plugin.ApprovalNone,
		Idempotent:   true,
		// The kernel runs every `tool: {module: ...}` step through it.
		Roles: []string{plugin.RoleModule},
	}, scriptDefinition}}
}

// Invoke dispatches to the capability called.
func (*Plugin) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	defer scheduler.Load().enter()()
	switch call.Capability {
	case ScriptCapability:
		return invokeScript(ctx, call)
	case Capability:
		return invokeModule(ctx, call)
	}
	return plugin.Refused(errcode.CapabilityNotFound, fmt.Sprintf("plugin %s serves no capability %q", Name, call.Capability))
}

// invokeModule bundles (or reuses) the module and runs it once.
func invokeModule(ctx context.Context, call *plugin.Call) *plugin.Result {
	var req Request
	if err := decodeStrict(call.Input, &req); err != nil {
		return plugin.Refused(errcode.ModuleRequestInvalid, "js.module input is not a valid request: "+err.Error())
	}
	prog, ecall, refusal := prepare(Capability, call, req)
	if refusal != nil {
		return refusal
	}
	res, err := engine.Run(ctx, prog, ecall)
	if err != nil {
		return resultOf(err, plugin.StatusFailed)
	}
	return plugin.OK(res.Output, nil)
}

// prepare bundles (or reuses) the request's closure and builds the engine
// call. A module (js.module) reads no clock at all: Date is ModuleEpoch on
// every run and machine. A script (js.script) reads the run's clock from
// the invocation context, which stays one value for every invocation of
// the run, so its ctx.wait deadlines mean the run's time and its replays
// agree. Math.random, for both, is seeded from the closure and the input
// (Seed), so the same input gives the same output anywhere.
func prepare(capability string, call *plugin.Call, req Request) (*engine.Program, engine.Call, *plugin.Result) {
	files := make(map[string][]byte, len(req.Files))
	for path, src := range req.Files {
		files[path] = []byte(src)
	}
	prog, err := engine.Bundle(engine.Source{Entry: req.Entry, Files: files})
	if err != nil {
		return nil, engine.Call{}, resultOf(err, plugin.StatusRefused)
	}
	clock := ModuleEpoch
	if capability == ScriptCapability {
		if clock = call.Context.Clock; clock.IsZero() {
			return nil, engine.Call{}, plugin.Refused(errcode.ModuleClockMissing, capability+" needs the run's clock; the worker never reads the host's")
		}
	}
	seed, err := Seed(prog.Digest(), req.Input)
	if err != nil {
		return nil, engine.Call{}, plugin.Refused(errcode.ModuleRequestInvalid, capability+" input is not one JSON document: "+err.Error())
	}
	return prog, engine.Call{
		Input:       req.Input,
		Environment: req.Environment,
		Clock:       clock,
		Seed:        seed,
		Timeout:     time.Duration(req.TimeoutMS) * time.Millisecond,
	}, nil
}

func resultOf(err error, status string) *plugin.Result {
	var ee *engine.Error
	if errors.As(err, &ee) {
		return &plugin.Result{Status: status, Code: ee.Code, Message: ee.Message, DiscardWorker: ee.Discard}
	}
	return &plugin.Result{Status: plugin.StatusFailed, Code: errcode.ModuleCrashed, Message: err.Error(), DiscardWorker: true}
}

const requestSchema = `{"type":"object","required":["entry","files","input"],"properties":{` +
	`"entry":{"type":"string"},"files":{"type":"object","additionalProperties":{"type":"string"}},` +
	`"input":{"type":"object"},"environment":{"type":"object","additionalProperties":{"type":"string"}},` +
	`"timeout_ms":{"type":"integer","minimum":1000,"maximum":30000},` +
	// The helpers a module may declare it requires (tool: {module, requires});
	// the kernel refuses any other at admission. parseUrl is the one Runx helper.
	`"requires":{"type":"array","items":{"enum":["parseUrl"]}}},"additionalProperties":false}`
