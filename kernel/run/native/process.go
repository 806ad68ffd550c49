package native

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Process tool ceilings, named for the capability they constrain.
const (
	ProcessDefaultTimeout = 60 * time.Second
	// ProcessHostGrace is how long past the process's own timeout the
	// kernel waits for the host's answer.
	ProcessHostGrace = 5 * time.Second
	// ProcessMaxAnswer bounds the host's answer for one process.
	ProcessMaxAnswer = 8 << 20
	// ProcessFailureTailBytes bounds how much of a failed process tool's
	// stderr and stdout (each, its end) its error keeps: in the message, in
	// the run's record and in what runx prints.
	ProcessFailureTailBytes = 2 << 10
)

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9]`)

// ProcessRequest is a command step's call to the capability with role
// command: its input, the process's own timeout and its argv's digest,
// which the step's receipt records.
type ProcessRequest struct {
	Input      map[string]any
	Timeout    time.Duration
	ArgvDigest string
}

// PrepareProcess prepares a process tool: exact argv, the package directory
// (or a directory inside it) as cwd, and only the declared environment,
// read through lookupEnv; the process runs at most timeout.
func PrepareProcess(step *pkg.Step, pkgDir string, lookupEnv func(string) (string, bool), inputs map[string]any, timeout time.Duration) (*ProcessRequest, error) {
	c := step.Tool.Command
	cwd := pkgDir
	if c.Cwd != "" {
		cwd = filepath.Join(pkgDir, filepath.FromSlash(c.Cwd))
		if rel, err := filepath.Rel(pkgDir, cwd); err != nil || strings.HasPrefix(rel, "..") {
			return nil, contract.Errorf(errcode.ProcessCwdOutsidePackage, "step %s: cwd %q leaves the package", step.ID, c.Cwd)
		}
	}
	env := map[string]string{}
	for _, name := range c.Environment.Required {
		v, ok := lookupEnv(name)
		if !ok {
			return nil, contract.Errorf(errcode.ProcessEnvironmentMissing, "step %s needs the environment variable %s, which is not set", step.ID, name)
		}
		env[name] = v
	}
	for _, name := range c.Environment.Optional {
		if v, ok := lookupEnv(name); ok {
			env[name] = v
		}
	}
	argv := append([]string{c.Command}, c.Args...)
	req := map[string]any{
		"argv": argv,
		"cwd":  cwd,
	}
	switch c.InputMode {
	case "env":
		for name, v := range inputs {
			key := "RUNX_INPUT_" + strings.ToUpper(nonIdent.ReplaceAllString(name, "_"))
			if s, ok := v.(string); ok {
				env[key] = s
				continue
			}
			raw, err := canon.Canonical(v)
			if err != nil {
				return nil, err
			}
			env[key] = string(raw)
		}
	default:
		raw, err := canon.Canonical(inputs)
		if err != nil {
			return nil, err
		}
		req["stdin"] = string(raw)
	}
	req["env"] = env
	req["timeout_ms"] = timeout.Milliseconds()
	argvDigest, err := canon.Digest(argv)
	if err != nil {
		return nil, err
	}
	return &ProcessRequest{Input: req, Timeout: timeout, ArgvDigest: argvDigest}, nil
}

// Definer reads a capability's description: the part of the plugin host a
// process call's argv is read through.
type Definer interface {
	Definition(ctx context.Context, capability string) (*sdk.Definition, host.PluginRef, error)
}

// ProcessCallArgv reports whether call is a process tool's call (to the
// capability with role command) and, if so, the exact argv it would start,
// read through the capability's argv_input: what `runx test`
// providers.processes answer in place of the process.
func ProcessCallArgv(ctx context.Context, h Definer, call *sdk.Call) ([]string, bool) {
	if call == nil {
		return nil, false
	}
	def, _, err := h.Definition(ctx, call.Capability)
	if err != nil || !def.HasRole(sdk.RoleCommand) || def.ArgvInput == "" {
		return nil, false
	}
	var input map[string]any
	if err := json.Unmarshal(call.Input, &input); err != nil {
		return nil, false
	}
	argv := Argv(def, input)
	return argv, len(argv) > 0
}

// Argv is the exact argv def describes in the input (argv_input, and
// args_input after a command), or nil when the input does not hold it.
func Argv(def *sdk.Definition, input map[string]any) []string {
	if def == nil || def.ArgvInput == "" {
		return nil
	}
	if input == nil {
		input = map[string]any{}
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil
	}
	argv, err := def.Argv(raw)
	if err != nil {
		return nil
	}
	return argv
}

// ProcessAnswer is what a process tool's plugin answers for a process that
// exited 0 printing stdout, for a stand-in that answers in its place.
func ProcessAnswer(stdout []byte) ([]byte, error) {
	return json.Marshal(processAnswer{Stdout: string(stdout)})
}

type processAnswer struct {
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timed_out"`
	Stopped  bool   `json:"stopped"`
}

// InterpretProcess records what the process did and takes its stdout, which
// must be one JSON object, as the step's output.
func InterpretProcess(stepID string, raw []byte, argvDigest string, elapsed time.Duration, body *receipt.Body) (any, *contract.ErrorBody) {
	var ans processAnswer
	if err := json.Unmarshal(raw, &ans); err != nil {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the process plugin answered with an unreadable result"}
	}
	body.Process = &receipt.Process{ArgvDigest: argvDigest, ExitCode: ans.ExitCode, Signal: ans.Signal, DurationMS: elapsed.Milliseconds()}
	switch {
	case ans.TimedOut:
		return nil, processFailure(&ans, errcode.ProcessTimeout, fmt.Sprintf("step %s: the process ran past its timeout and its process group was killed", stepID))
	case ans.Stopped:
		return nil, processFailure(&ans, errcode.ProcessStopped, fmt.Sprintf("step %s: the process was stopped", stepID))
	case ans.Signal != "":
		return nil, processFailure(&ans, errcode.ProcessSignalled, fmt.Sprintf("step %s: the process was killed by %s", stepID, ans.Signal))
	case ans.ExitCode != 0:
		return nil, processFailure(&ans, errcode.ProcessExitNonzero, fmt.Sprintf("step %s: the process exited with status %d", stepID, ans.ExitCode))
	}
	dec := json.NewDecoder(strings.NewReader(ans.Stdout))
	var out map[string]any
	if err := dec.Decode(&out); err != nil || out == nil || dec.More() {
		return nil, processFailure(&ans, errcode.ProcessOutputNotJSON, fmt.Sprintf("step %s: a process tool must print exactly one JSON object on stdout", stepID))
	}
	return out, nil
}

// ProcessOutputTail is what a failed process tool printed last: the end of
// its stderr and stdout, each at most ProcessFailureTailBytes.
type ProcessOutputTail struct {
	Stderr          string `json:"stderr,omitempty"`
	StderrTruncated bool   `json:"stderr_truncated,omitempty"`
	Stdout          string `json:"stdout,omitempty"`
	StdoutTruncated bool   `json:"stdout_truncated,omitempty"`
}

// processFailure is a failed process tool's error: the message ends with
// what it printed last (stderr, else stdout), so a person sees why it
// failed, and the detail keeps both tails for the run's record.
func processFailure(ans *processAnswer, code errcode.Code, message string) *contract.ErrorBody {
	var t ProcessOutputTail
	t.Stderr, t.StderrTruncated = outputTail(ans.Stderr)
	t.Stdout, t.StdoutTruncated = outputTail(ans.Stdout)
	body := &contract.ErrorBody{Code: code, Message: message}
	if t == (ProcessOutputTail{}) {
		return body
	}
	body.Detail = t
	switch {
	case strings.TrimSpace(t.Stderr) != "":
		body.Message += "; its stderr ends:\n" + t.Stderr
	case strings.TrimSpace(t.Stdout) != "":
		body.Message += "; its stdout ends:\n" + t.Stdout
	}
	body.Message = strings.TrimRight(body.Message, "\n")
	return body
}

// outputTail is the last ProcessFailureTailBytes of s, cut at a character
// boundary, and whether anything was cut.
func outputTail(s string) (string, bool) {
	if len(s) <= ProcessFailureTailBytes {
		return s, false
	}
	s = s[len(s)-ProcessFailureTailBytes:]
	for i := 0; i < len(s) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:], true
		}
	}
	return s, true
}
