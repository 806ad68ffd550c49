package process

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Processes that outlive a call: process.start and the tools that reach a
// process once it runs. Each process runs under a supervisor of its own
// (longlived_supervisor.go) and its state lives in the project's runx state
// (longlived_state.go), so a later run of the same actor, or the person
// through `runx process`, reaches it.

// Capability ids of long-lived processes.
const (
	StartCapability  = "process.start"
	ReadCapability   = "process.read"
	WriteCapability  = "process.write"
	ResizeCapability = "process.resize"
	StopCapability   = "process.stop"
	ListCapability   = "process.list"
)

// Schemas of the documents the process tools answer with.
const (
	ProcessSchema       = "runx.process.v1"
	ProcessOutputSchema = "runx.process.output.v1"
	ProcessListSchema   = "runx.process_list.v1"
	ProcessWriteSchema  = "runx.process_write.v1"
)

// Bounds of long-lived processes.
const (
	StartDefaultMaxSeconds = 3_600
	StartMaxSeconds        = 86_400
	// ReadDefaultMaxBytes and ReadMaxBytes bound one page of a log.
	ReadDefaultMaxBytes = 1 << 20
	ReadMaxBytes        = 4 << 20
	// WriteMaxBytes bounds one write's input.
	WriteMaxBytes = 1 << 20
	// startConfirmTimeout is how long a start waits for its supervisor.
	startConfirmTimeout = 15 * time.Second
)

// LogMaxBytes is the most of its end a process's log keeps (the log keeps
// at least half of it). A variable so tests can watch a log drop its start.
var LogMaxBytes int64 = 128 << 20

// Binding is what the kernel (or the person's CLI) tells the process tools
// in a call's binding: where the project's runx state is and whose call it
// is. AllActors is the person's own view through `runx process`.
type Binding struct {
	ProjectDir string `json:"project_dir"`
	Actor      string `json:"actor,omitempty"`
	AllActors  bool   `json:"all_actors,omitempty"`
}

// DefaultActor is the actor of a call whose binding names none: the person
// operating the project.
const DefaultActor = "local"

func processBinding(c plugin.Context) (*Binding, *plugin.Result) {
	var b Binding
	if len(c.Binding) > 0 {
		if err := json.Unmarshal(c.Binding, &b); err != nil {
			return nil, plugin.Refused(errcode.ProcessStateUnavailable, "the call's binding is not a JSON object with project_dir: "+err.Error())
		}
	}
	if b.ProjectDir == "" {
		return nil, plugin.Refused(errcode.ProcessStateUnavailable, "the call names no project state directory (binding project_dir), so no process can be kept")
	}
	if b.Actor == "" {
		b.Actor = DefaultActor
	}
	return &b, nil
}

// longLivedDefinitions describe the process tools.
func longLivedDefinitions() []plugin.Definition {
	return []plugin.Definition{
		{
			ID:           StartCapability,
			Summary:      "Start a process that outlives the call (a dev server, a watcher, an interactive program) under a supervisor of its own: exact argv, no shell, a directory in the workspace, a pseudo-terminal when tty is given, stopped at max_seconds. The same call sent again answers the process its first send started, or effect_unconfirmed when that start was never confirmed.",
			InputSchema:  json.RawMessage(startRequestSchema),
			OutputSchema: json.RawMessage(processSchema),
			Effect:       plugin.EffectProcess, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes:    []string{"process.start"},
			ArgvInput: "/command", ArgsInput: "/args",
			PathInputs: []plugin.PathInput{{Pointer: "/cwd", Role: plugin.PathRead}},
		},
		{
			ID:           ReadCapability,
			Summary:      "Read a process's output after a cursor: stdout and stderr tagged, or the terminal's output, with the next cursor, the bytes the log no longer keeps, and whether it still runs.",
			InputSchema:  json.RawMessage(readRequestSchema),
			OutputSchema: json.RawMessage(outputSchema),
			Effect:       plugin.EffectRead, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes: []string{"process.read"},
		},
		{
			ID:           WriteCapability,
			Summary:      "Type input to a running process's stdin or terminal, control keys included; a write sent again under the same call is applied once.",
			InputSchema:  json.RawMessage(writeRequestSchema),
			OutputSchema: json.RawMessage(writeResponseSchema),
			Effect:       plugin.EffectWrite, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes: []string{"process.write"},
		},
		{
			ID:           ResizeCapability,
			Summary:      "Resize a process's pseudo-terminal.",
			InputSchema:  json.RawMessage(resizeRequestSchema),
			OutputSchema: json.RawMessage(processSchema),
			Effect:       plugin.EffectWrite, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes: []string{"process.write"},
		},
		{
			ID:           StopCapability,
			Summary:      "Stop a process: terminate its process group, then kill it after a grace period; answers how it ended.",
			InputSchema:  json.RawMessage(idRequestSchema),
			OutputSchema: json.RawMessage(processSchema),
			Effect:       plugin.EffectWrite, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes: []string{"process.stop"},
		},
		{
			ID:           ListCapability,
			Summary:      "List the processes of the calling actor in this project, running and ended.",
			InputSchema:  json.RawMessage(listRequestSchema),
			OutputSchema: json.RawMessage(listSchema),
			Effect:       plugin.EffectRead, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes: []string{"process.read"},
		},
	}
}

// longLived returns the handler of a process tool, or nil.
func longLived(id string) func(ctx context.Context, call *plugin.Call, b *Binding) *plugin.Result {
	switch id {
	case StartCapability:
		return startProcess
	case ReadCapability:
		return readProcess
	case WriteCapability:
		return writeProcess
	case ResizeCapability:
		return resizeProcess
	case StopCapability:
		return stopProcess
	case ListCapability:
		return listProcesses
	}
	return nil
}

// invokeLongLived serves a process tool call, or reports false.
func invokeLongLived(ctx context.Context, call *plugin.Call) (*plugin.Result, bool) {
	h := longLived(call.Capability)
	if h == nil {
		return nil, false
	}
	b, res := processBinding(call.Context)
	if res != nil {
		return res, true
	}
	return h(ctx, call, b), true
}

func decodeStrict(raw []byte, v any, capability string) *plugin.Result {
	if err := decodeJSONStrict(raw, v); err != nil {
		return plugin.Refused(errcode.ProcessRequestInvalid, fmt.Sprintf("%s input is not a valid request: %v", capability, err))
	}
	return nil
}

func answer(v any) *plugin.Result {
	out, err := json.Marshal(v)
	if err != nil {
		return plugin.Failed(errcode.ProcessOutputInvalid, err.Error())
	}
	return plugin.OK(out, nil)
}
