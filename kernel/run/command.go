package run

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/canon"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/native"
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
			return native.InterpretProcess(step.ID, raw, argvDigest, e.Clock().Sub(started), body)
		},
	}, nil
}
