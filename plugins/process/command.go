package process

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// CommandName is the plugin command.execute is served under. It lives in
// this package because it is supervised exactly as a process tool is.
const CommandName = "command"

// CommandCapability runs one command in the workspace.
const CommandCapability = "command.execute"

// LockTokenEnv is the variable a command receives the workspace lock's
// token in, so a runx it starts joins the lock instead of waiting on it.
const LockTokenEnv = "RUNX_WORKSPACE_LOCK_TOKEN"

// Bounds of command.execute. Output beyond a bound is cut from the front:
// the end of a command's output is where it says how it went.
const (
	CommandDefaultTimeoutSeconds = 600
	CommandMaxTimeoutSeconds     = 3_600
	CommandMaxStdoutBytes        = 4 << 20
	CommandMaxStderrBytes        = 1 << 20
)

// defaultSearchPath is PATH when neither the kernel nor the plugin's own
// environment names one.
const defaultSearchPath = "/usr/local/bin:/usr/bin:/bin"

// CommandRequest is command.execute's input: argv only, never a shell line.
// Cwd is a directory in the workspace (default its root).
type CommandRequest struct {
	Argv           []string `json:"argv"`
	Cwd            string   `json:"cwd,omitempty"`
	TimeoutSeconds int64    `json:"timeout_seconds,omitempty"`
}

// CommandBinding is what the kernel passes in the call's binding: the
// command's whole environment besides PATH (never a credential), and the
// token of the workspace lock it holds for the command.
type CommandBinding struct {
	Environment map[string]string `json:"environment,omitempty"`
	LockToken   string            `json:"lock_token,omitempty"`
	// ProjectDir and Actor let the command be followed as a process.
	ProjectDir string `json:"project_dir,omitempty"`
	Actor      string `json:"actor,omitempty"`
}

// CommandProcess names the process a command is recorded as.
type CommandProcess struct {
	Kind Kind   `json:"kind"`
	ID   string `json:"id"`
}

// CommandResponse is command.execute's output: what the command did, with
// its whole bounded output.
type CommandResponse struct {
	ExitCode        int            `json:"exit_code"`
	Signal          string         `json:"signal,omitempty"`
	Stdout          string         `json:"stdout"`
	Stderr          string         `json:"stderr"`
	StdoutTruncated bool           `json:"stdout_truncated,omitempty"`
	StderrTruncated bool           `json:"stderr_truncated,omitempty"`
	DurationMS      int64          `json:"duration_ms"`
	TimedOut        bool           `json:"timed_out,omitempty"`
	Stopped         bool           `json:"stopped,omitempty"`
	Argv            []string       `json:"argv"`
	Cwd             string         `json:"cwd"`
	Process         CommandProcess `json:"process"`
}

// Command serves command.execute.
type Command struct {
	registry
}

// NewCommand returns the command plugin.
func NewCommand() *Command { return &Command{} }

// Info describes command.execute.
func (*Command) Info() plugin.Info {
	return plugin.Info{Name: CommandName, Version: Version, Capabilities: []plugin.Definition{{
		ID:           CommandCapability,
		Summary:      "Run one command in the workspace: exact argv (no shell), a directory inside the workspace, only PATH and the environment the kernel delivers, a timeout, and its whole output bounded.",
		InputSchema:  json.RawMessage(commandRequestSchema),
		OutputSchema: json.RawMessage(commandResponseSchema),
		Effect:       plugin.EffectProcess,
		Approval:     plugin.ApprovalNone,
		// The gate shows the exact argv and standing approvals match it; the
		// command runs in (and may read beneath) its cwd.
		ArgvInput:  "/argv",
		PathInputs: []plugin.PathInput{{Pointer: "/cwd", Role: plugin.PathRead}},
	}}}
}

// Invoke runs the command the request names.
func (c *Command) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	if call.Capability != CommandCapability {
		return plugin.Refused(errcode.CapabilityNotFound, fmt.Sprintf("plugin %s serves no capability %q", CommandName, call.Capability))
	}
	var req CommandRequest
	dec := json.NewDecoder(bytes.NewReader(call.Input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return plugin.Refused(errcode.CommandRequestInvalid, "command.execute input is not a valid request: "+err.Error())
	}
	sp, cwd, res := commandSpec(call, &req)
	if res != nil {
		return res
	}
	var b CommandBinding
	_ = json.Unmarshal(call.Context.Binding, &b) // checked by commandSpec
	sp.follow = followCommand(call, &b, req.Argv, cwd, sp.dir, sp.timeout)
	sup, untrack := c.track(call.Context.CallID)
	defer untrack()
	o, res := sup.run(ctx, sp)
	if sp.follow != nil {
		if o != nil && sp.follow.stopRequested() {
			o.stopped = true
		}
		sp.follow.ended(o, res)
	}
	if res != nil {
		return res
	}
	out, err := json.Marshal(&CommandResponse{
		ExitCode: o.exitCode, Signal: o.signal, Stdout: o.stdout, Stderr: o.stderr,
		StdoutTruncated: o.stdoutTruncated, StderrTruncated: o.stderrTruncated,
		DurationMS: o.durationMS, TimedOut: o.timedOut, Stopped: o.stopped,
		Argv: req.Argv, Cwd: cwd,
		Process: CommandProcess{Kind: KindCommand, ID: CommandProcessID(call.Context)},
	})
	if err != nil {
		return plugin.Failed(errcode.ProcessOutputInvalid, err.Error())
	}
	return plugin.OK(out, nil)
}

// CommandProcessID names the process a command call is recorded as:
// <run id>#<step address>@<attempt>, the first attempt being 1.
func CommandProcessID(c plugin.Context) string {
	return fmt.Sprintf("%s#%s@%d", c.RunID, c.StepAddress, max(c.Attempt, 1))
}

// commandSpec checks a request against the call's reach and binding and
// says exactly what will run, and where (as outputs name it).
func commandSpec(call *plugin.Call, req *CommandRequest) (*spec, string, *plugin.Result) {
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return nil, "", plugin.Refused(errcode.CommandRequestInvalid, "command.execute needs argv with a command: argv[0] is empty")
	}
	if res := checkArgv(req.Argv, errcode.CommandRequestInvalid); res != nil {
		return nil, "", res
	}
	timeout := req.TimeoutSeconds
	if timeout == 0 {
		timeout = CommandDefaultTimeoutSeconds
	}
	if timeout < 0 || timeout > CommandMaxTimeoutSeconds {
		return nil, "", plugin.Refused(errcode.CommandRequestInvalid, fmt.Sprintf("timeout_seconds must be between 1 and %d", CommandMaxTimeoutSeconds))
	}
	// The directory is contained by the fs tools' own rules, so a command
	// starts nowhere a file tool could not go.
	scope, res := pathpolicy.NewScope(call.Context)
	if res != nil {
		return nil, "", res
	}
	t, res := scope.Resolve(req.Cwd)
	if res != nil {
		return nil, "", res
	}
	if t.Info == nil || !t.Info.IsDir() {
		return nil, "", plugin.Refused(errcode.CommandCwdInvalid, fmt.Sprintf("cwd %s is not a directory in the workspace", orRoot(req.Cwd)))
	}
	env, res := commandEnvironment(call.Context.Binding)
	if res != nil {
		return nil, "", res
	}
	return &spec{
		argv: req.Argv, dir: t.Real, env: env,
		timeout:   time.Duration(timeout) * time.Second,
		maxStdout: CommandMaxStdoutBytes, maxStderr: CommandMaxStderrBytes, stdoutTail: true,
		searchPath: env["PATH"],
	}, t.Display, nil
}

// commandEnvironment is all a command receives: PATH, the environment the
// kernel binds, and the workspace lock's token when the kernel holds the
// lock for it. Nothing of the plugin's own environment leaks in, so no
// credential does either; the token comes only from lock_token, never from
// an environment entry.
func commandEnvironment(raw json.RawMessage) (map[string]string, *plugin.Result) {
	var b CommandBinding
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, plugin.Refused(errcode.CommandEnvironmentInvalid, "the call's binding is not a JSON object with environment and lock_token: "+err.Error())
		}
	}
	env := map[string]string{"PATH": os.Getenv("PATH")}
	if env["PATH"] == "" {
		env["PATH"] = defaultSearchPath
	}
	for k, v := range b.Environment {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, plugin.Refused(errcode.CommandEnvironmentInvalid, fmt.Sprintf("environment variable %q cannot be passed to a process", k))
		}
		env[k] = v
	}
	delete(env, LockTokenEnv)
	if b.LockToken != "" {
		env[LockTokenEnv] = b.LockToken
	}
	return env, nil
}

func orRoot(p string) string {
	if p == "" {
		return "(the workspace root)"
	}
	return p
}

const commandRequestSchema = `{"type":"object","required":["argv"],"additionalProperties":false,"properties":{` +
	`"argv":{"type":"array","minItems":1,"items":{"type":"string"},"description":"The command and its arguments, exactly; no shell."},` +
	`"cwd":{"type":"string","description":"Workspace-relative directory to run in (default the workspace root)."},` +
	`"timeout_seconds":{"type":"integer","minimum":1,"maximum":3600,"description":"Default 600."}}}`

const commandResponseSchema = `{"type":"object","required":["exit_code","stdout","stderr","duration_ms","argv","cwd","process"],"properties":{` +
	`"exit_code":{"type":"integer"},"signal":{"type":"string"},"stdout":{"type":"string"},"stderr":{"type":"string"},` +
	`"stdout_truncated":{"type":"boolean"},"stderr_truncated":{"type":"boolean"},"duration_ms":{"type":"integer"},` +
	`"timed_out":{"type":"boolean"},"stopped":{"type":"boolean"},"argv":{"type":"array","items":{"type":"string"}},"cwd":{"type":"string"},` +
	`"process":{"type":"object","required":["kind","id"],"properties":{"kind":{"const":"command"},"id":{"type":"string"}}}}}`
