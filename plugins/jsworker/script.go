package jsworker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/plugins/jsworker/engine"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// ScriptRequest is js.script's input: a js.module request plus the step's
// record and max_calls.
type ScriptRequest struct {
	Request
	Record   []engine.Recorded `json:"record"`
	MaxCalls int               `json:"max_calls"`
	// Session names the live session the worker keeps for this step
	// between invocations; RecordFrom says Record holds only the entries
	// after those the session was given (engine.ScriptCall).
	Session    string `json:"session,omitempty"`
	RecordFrom int    `json:"record_from,omitempty"`
	// OutputPart asks for part n (from 1) of a finished script's output
	// that passed one answer (outputparts.go).
	OutputPart int `json:"output_part,omitempty"`
}

// ScriptStatus is how js.script's answer to one invocation stands.
type ScriptStatus string

// Script answers, as ScriptAnswer.Status, listed once.
const (
	ScriptDone      ScriptStatus = "done"
	ScriptSuspended ScriptStatus = "suspended"
	// ScriptReplayNeeded: the worker holds no session where the record
	// continues; the kernel sends the whole record.
	ScriptReplayNeeded ScriptStatus = "replay_needed"
	// ScriptPart answers an output_part request.
	ScriptPart ScriptStatus = "part"
)

// ScriptAnswer is js.script's output when the invocation is ok: the script
// finished with Output, or it waits on Pending, every request it made that
// the record does not hold, which the kernel carries out before invoking it
// again with them recorded.
type ScriptAnswer struct {
	Status  ScriptStatus     `json:"status"`
	Output  json.RawMessage  `json:"output,omitempty"`
	Pending []engine.Pending `json:"pending,omitempty"`
	// An output past one answer: its first part here, the rest asked for
	// by output_part; the kernel joins them and checks bytes and digest.
	Part         *string `json:"part,omitempty"`
	OutputParts  int     `json:"output_parts,omitempty"`
	OutputBytes  int     `json:"output_bytes,omitempty"`
	OutputDigest string  `json:"output_digest,omitempty"`
}

// scriptDefinition declares js.script. Its effect is none: the worker only
// answers what the script asks for; the kernel admits and carries out every
// request, as it would a step's own call.
var scriptDefinition = plugin.Definition{
	ID: ScriptCapability,
	Summary: "Run one invocation of a deterministic JavaScript script, (input, {environment, call, read, wait}), " +
		"replaying its record: it finishes with a JSON object or suspends on the requests it waits on.",
	InputSchema:  json.RawMessage(scriptRequestSchema),
	OutputSchema: json.RawMessage(scriptAnswerSchema),
	Effect:       plugin.EffectNone,
	Approval:     plugin.ApprovalNone,
	Idempotent:   true,
	// The kernel runs every `script:` step through it.
	Roles: []string{plugin.RoleScript},
}

// invokeScript bundles (or reuses) the script and runs it once over its
// record.
func invokeScript(ctx context.Context, call *plugin.Call) *plugin.Result {
	var req ScriptRequest
	if err := decodeStrict(call.Input, &req); err != nil {
		return plugin.Refused(errcode.ModuleRequestInvalid, "js.script input is not a valid request: "+err.Error())
	}
	if req.OutputPart > 0 {
		return answerPart(req.Session, req.OutputPart)
	}
	prog, ecall, refusal := prepare(ScriptCapability, call, req.Request)
	if refusal != nil {
		return refusal
	}
	res, err := engine.RunScript(ctx, prog, ecall, engine.ScriptCall{Record: req.Record, MaxCalls: req.MaxCalls, Session: req.Session, RecordFrom: req.RecordFrom})
	if err != nil {
		return resultOf(err, plugin.StatusFailed)
	}
	answer := ScriptAnswer{Status: ScriptDone, Output: res.Output}
	switch {
	case res.ReplayNeeded:
		answer = ScriptAnswer{Status: ScriptReplayNeeded}
	case res.Output == nil:
		answer = ScriptAnswer{Status: ScriptSuspended, Pending: res.Suspended}
	case len(res.Output) > answerOutputBytes:
		if req.Session == "" {
			return plugin.Failed(errcode.ModuleOutputTooLarge, fmt.Sprintf("the script's output is %d bytes, more than one answer carries (%d), and the call names no session to send it in parts", len(res.Output), answerOutputBytes))
		}
		answer = keepParts(req.Session, res.Output)
	}
	out, err := encodeAnswer(answer)
	if err != nil {
		return plugin.Failed(errcode.ModuleCrashed, "js.script could not encode its answer: "+err.Error())
	}
	return plugin.OK(out, nil)
}

// encodeAnswer writes the answer without HTML escaping, so a pending
// request's canonical input reaches the kernel byte for byte, as digested.
func encodeAnswer(a ScriptAnswer) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

const scriptRequestSchema = `{"type":"object","required":["entry","files","input","max_calls"],"properties":{` +
	`"entry":{"type":"string"},"files":{"type":"object","additionalProperties":{"type":"string"}},` +
	`"input":{"type":"object"},"environment":{"type":"object","additionalProperties":{"type":"string"}},` +
	`"timeout_ms":{"type":"integer","minimum":1000,"maximum":30000},` +
	`"max_calls":{"type":"integer","minimum":1,"maximum":10000},` +
	`"session":{"type":"string","minLength":1,"maxLength":512},"record_from":{"type":"integer","minimum":0},"output_part":{"type":"integer","minimum":1},` +
	`"record":{"type":"array","items":{"type":"object","required":["index","kind"],"properties":{` +
	`"index":{"type":"integer","minimum":0},"kind":{"enum":["call","read","wait"]},"tool":{"type":"string"},` +
	`"input_digest":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"},"output":{},` +
	`"error":{"type":"object","required":["code","message"],"properties":{"code":{"type":"string"},"message":{"type":"string"}}},` +
	`"settled_at":{"type":"integer","minimum":1}}}}},"additionalProperties":false}`

const scriptAnswerSchema = `{"type":"object","required":["status"],"oneOf":[` +
	`{"properties":{"status":{"const":"done"},"output":{"type":"object"},"part":{"type":"string"},` +
	`"output_parts":{"type":"integer","minimum":2},"output_bytes":{"type":"integer","minimum":1},"output_digest":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}},` +
	`"anyOf":[{"required":["output"]},{"required":["part","output_parts","output_bytes","output_digest"]}]},` +
	`{"properties":{"status":{"const":"part"},"part":{"type":"string"}},"required":["part"]},` +
	`{"properties":{"status":{"const":"suspended"},"pending":{"type":"array","minItems":1,"items":{` +
	`"type":"object","required":["index","kind"],"properties":{"index":{"type":"integer","minimum":0},` +
	`"kind":{"enum":["call","read","wait"]},"tool":{"type":"string"},"input":{"type":"object"},` +
	`"until":{"type":"integer","minimum":1}}}}},"required":["pending"]},` +
	`{"properties":{"status":{"const":"replay_needed"}}}]}`
