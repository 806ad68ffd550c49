package process

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Name is the plugin's name; its capabilities are process.*.
const Name = "process"

// Version is the plugin's own version.
const Version = "0.1.0"

// Capability runs one supervised process to completion.
const Capability = "process.run"

// Ceilings, named for the capability they constrain.
const (
	// ProcessMaxStdoutBytes bounds what a process tool may print as its answer.
	ProcessMaxStdoutBytes = 4 << 20
	// ProcessMaxStderrBytes is how much of stderr's tail is kept for diagnosis.
	ProcessMaxStderrBytes = 64 << 10
	// ProcessDefaultTimeoutMS applies when a step names no timeout.
	ProcessDefaultTimeoutMS = 60_000
	// ProcessMaxTimeoutMS is the longest a process tool may run.
	ProcessMaxTimeoutMS = 3_600_000
	// processKillGraceMS is how long a cancelled group has between TERM and KILL.
	processKillGraceMS = 2_000
)

// Request is process.run's input.
type Request struct {
	Argv           []string          `json:"argv"`
	Cwd            string            `json:"cwd"`
	Env            map[string]string `json:"env,omitempty"`
	Stdin          *string           `json:"stdin,omitempty"`
	TimeoutMS      int64             `json:"timeout_ms,omitempty"`
	MaxStdoutBytes int64             `json:"max_stdout_bytes,omitempty"`
}

// Response is process.run's output: what the process did.
type Response struct {
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal,omitempty"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	DurationMS int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out"`
	Stopped    bool   `json:"stopped"`
}

// Plugin serves process.run.
type Plugin struct {
	registry
}

// New returns the process plugin.
func New() *Plugin { return &Plugin{} }

// Info describes process.run.
func (p *Plugin) Info() plugin.Info {
	return plugin.Info{Name: Name, Version: Version, Capabilities: append([]plugin.Definition{{
		ID:           Capability,
		Summary:      "Run one trusted host process with exact argv (no shell), a working directory, only the delivered environment, stdin, a timeout and bounded output.",
		InputSchema:  json.RawMessage(requestSchema),
		OutputSchema: json.RawMessage(responseSchema),
		Effect:       plugin.EffectProcess,
		Approval:     plugin.ApprovalNone,
		// Its cwd is a host directory the kernel chose (the package's), not
		// a workspace path a caller names, so it is no path input.
		ArgvInput: "/argv",
		// The kernel runs every `tool: {command: ...}` step through it.
		Roles: []string{plugin.RoleCommand},
	}}, longLivedDefinitions()...)}
}

// Invoke runs the process the request describes.
func (p *Plugin) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	if res, ok := invokeLongLived(ctx, call); ok {
		return res
	}
	var req Request
	if err := json.Unmarshal(call.Input, &req); err != nil {
		return plugin.Refused(errcode.ProcessRequestInvalid, "process.run input is not a valid request: "+err.Error())
	}
	if res := validate(&req); res != nil {
		return res
	}
	sup, untrack := p.track(call.Context.CallID)
	defer untrack()
	o, res := sup.run(ctx, &spec{
		argv: req.Argv, dir: req.Cwd, env: req.Env, stdin: req.Stdin,
		timeout:   time.Duration(req.TimeoutMS) * time.Millisecond,
		maxStdout: req.MaxStdoutBytes, maxStderr: ProcessMaxStderrBytes,
		searchPath: os.Getenv("PATH"),
	})
	if res != nil {
		return res
	}
	out, err := json.Marshal(&Response{
		ExitCode: o.exitCode, Signal: o.signal, Stdout: o.stdout, Stderr: o.stderr,
		DurationMS: o.durationMS, TimedOut: o.timedOut, Stopped: o.stopped,
	})
	if err != nil {
		return plugin.Failed(errcode.ProcessOutputInvalid, err.Error())
	}
	return plugin.OK(out, nil)
}

func validate(req *Request) *plugin.Result {
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return plugin.Refused(errcode.ProcessArgvEmpty, "process.run needs a command: argv[0] is empty")
	}
	if req.Cwd == "" {
		return plugin.Refused(errcode.ProcessCwdMissing, "process.run needs an absolute working directory")
	}
	if info, err := os.Stat(req.Cwd); err != nil || !info.IsDir() {
		return plugin.Refused(errcode.ProcessCwdInvalid, fmt.Sprintf("working directory %s is not a directory", req.Cwd))
	}
	if req.TimeoutMS == 0 {
		req.TimeoutMS = ProcessDefaultTimeoutMS
	}
	if req.TimeoutMS < 0 || req.TimeoutMS > ProcessMaxTimeoutMS {
		return plugin.Refused(errcode.ProcessTimeoutInvalid, fmt.Sprintf("timeout must be between 1 ms and %d ms", ProcessMaxTimeoutMS))
	}
	if req.MaxStdoutBytes <= 0 || req.MaxStdoutBytes > ProcessMaxStdoutBytes {
		req.MaxStdoutBytes = ProcessMaxStdoutBytes
	}
	return nil
}

const requestSchema = `{"type":"object","required":["argv","cwd"],"additionalProperties":false,"properties":{` +
	`"argv":{"type":"array","minItems":1,"items":{"type":"string"}},"cwd":{"type":"string"},` +
	`"env":{"type":"object","additionalProperties":{"type":"string"}},"stdin":{"type":"string"},` +
	`"timeout_ms":{"type":"integer","minimum":1},"max_stdout_bytes":{"type":"integer","minimum":1}}}`

const responseSchema = `{"type":"object","properties":{"exit_code":{"type":"integer"},"signal":{"type":"string"},` +
	`"stdout":{"type":"string"},"stderr":{"type":"string"},"duration_ms":{"type":"integer"},` +
	`"timed_out":{"type":"boolean"},"stopped":{"type":"boolean"}}}`
