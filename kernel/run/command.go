package run

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/canon"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Process tool ceilings, named for the capability they constrain.
const (
	ProcessDefaultTimeout = 60 * time.Second
	processHostGrace      = 5 * time.Second
	processMaxAnswer      = 8 << 20
)

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9]`)

// commandDispatch prepares a process tool: exact argv, the package directory
// (or a directory inside it) as cwd, and only the declared environment.
func (rc *runCtx) commandDispatch(ctx context.Context, step *pkg.Step, inputs map[string]any) (*dispatch, error) {
	e := rc.e
	capability, err := e.roleCapability(ctx, sdk.RoleCommand)
	if err != nil {
		return nil, err
	}
	c := step.Tool.Command
	pkgDir := rc.pkg.Dir
	cwd := pkgDir
	if c.Cwd != "" {
		cwd = filepath.Join(pkgDir, filepath.FromSlash(c.Cwd))
		if rel, err := filepath.Rel(pkgDir, cwd); err != nil || strings.HasPrefix(rel, "..") {
			return nil, contract.Errorf("process_cwd_outside_package", "step %s: cwd %q leaves the package", step.ID, c.Cwd)
		}
	}
	env := map[string]string{}
	for _, name := range c.Environment.Required {
		v, ok := e.LookupEnv(name)
		if !ok {
			return nil, contract.Errorf("process_environment_missing", "step %s needs the environment variable %s, which is not set", step.ID, name)
		}
		env[name] = v
	}
	for _, name := range c.Environment.Optional {
		if v, ok := e.LookupEnv(name); ok {
			env[name] = v
		}
	}
	req := map[string]any{
		"argv": append([]string{c.Command}, c.Args...),
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
	timeout := stepTimeout(step, ProcessDefaultTimeout)
	req["timeout_ms"] = timeout.Milliseconds()
	argvDigest := mustDigest(req["argv"])
	started := e.Clock()
	return &dispatch{
		capability:  capability,
		commandRole: true,
		execution:   execTrustedHost,
		input:       req,
		timeout:     timeout + processHostGrace,
		maxOutput:   processMaxAnswer,
		interpret: func(raw []byte, body *receipt.Body) (any, *contract.ErrorBody) {
			return interpretProcess(step.ID, raw, argvDigest, e.Clock().Sub(started), body)
		},
	}, nil
}

type processAnswer struct {
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal"`
	Stdout   string `json:"stdout"`
	TimedOut bool   `json:"timed_out"`
	Stopped  bool   `json:"stopped"`
}

// interpretProcess records what the process did and takes its stdout, which
// must be one JSON object, as the step's output.
func interpretProcess(stepID string, raw []byte, argvDigest string, elapsed time.Duration, body *receipt.Body) (any, *contract.ErrorBody) {
	var ans processAnswer
	if err := json.Unmarshal(raw, &ans); err != nil {
		return nil, &contract.ErrorBody{Code: "capability_output_invalid", Message: "the process plugin answered with an unreadable result"}
	}
	body.Process = &receipt.Process{ArgvDigest: argvDigest, ExitCode: ans.ExitCode, Signal: ans.Signal, DurationMS: elapsed.Milliseconds()}
	switch {
	case ans.TimedOut:
		return nil, &contract.ErrorBody{Code: "process_timeout", Message: fmt.Sprintf("step %s: the process ran past its timeout and its process group was killed", stepID)}
	case ans.Stopped:
		return nil, &contract.ErrorBody{Code: "process_stopped", Message: fmt.Sprintf("step %s: the process was stopped", stepID)}
	case ans.Signal != "":
		return nil, &contract.ErrorBody{Code: "process_signalled", Message: fmt.Sprintf("step %s: the process was killed by %s", stepID, ans.Signal)}
	case ans.ExitCode != 0:
		return nil, &contract.ErrorBody{Code: "process_exit_nonzero", Message: fmt.Sprintf("step %s: the process exited with status %d", stepID, ans.ExitCode)}
	}
	dec := json.NewDecoder(strings.NewReader(ans.Stdout))
	var out map[string]any
	if err := dec.Decode(&out); err != nil || out == nil || dec.More() {
		return nil, &contract.ErrorBody{Code: "process_output_not_json", Message: fmt.Sprintf("step %s: a process tool must print exactly one JSON object on stdout", stepID)}
	}
	return out, nil
}
