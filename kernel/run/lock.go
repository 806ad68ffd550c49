package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/wslock"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// lockMode is the workspace lock a capability call takes: a command, a
// process tool and a native file change hold it alone; a native tool that
// only reads shares it; modules, store operations, agents and the kernel's
// own reads take nothing.
func (rc *runCtx) lockMode(ctx context.Context, capability string) wslock.Mode {
	switch {
	case capability == capabilityProcess || capability == "command.execute" || fsWrites[capability] != "":
		return wslock.Exclusive
	case capability == capabilityModule || capability == capabilityScript || strings.HasPrefix(capability, StoreConnector+"/"):
		return 0
	case strings.HasPrefix(capability, "fs.") || strings.HasPrefix(capability, "git."):
		return wslock.Shared
	}
	switch rc.e.capabilityEffect(ctx, capability) {
	case sdk.EffectNone:
		return 0
	case sdk.EffectRead:
		return wslock.Shared
	}
	return wslock.Exclusive
}

// holdWorkspace takes the workspace lock for a call, joining a hold this
// process was started under (RUNX_WORKSPACE_LOCK_TOKEN) instead of waiting
// on itself.
func (rc *runCtx) holdWorkspace(ctx context.Context, mode wslock.Mode) (*wslock.Hold, error) {
	if mode == 0 {
		return nil, nil
	}
	return wslock.AcquireJoining(ctx, rc.e.ProjectDir, mode, rc.e.LockToken)
}

// withLockToken hands a process run under an exclusive hold the token that
// lets a runx it starts join the hold.
func withLockToken(d *dispatch, hold *wslock.Hold, binding *json.RawMessage) {
	if hold == nil || hold.Token() == "" {
		return
	}
	if d.capability == "command.execute" {
		// command.execute takes its delivered environment and the token
		// from its binding, never from the input a caller wrote.
		raw, _ := json.Marshal(map[string]any{"project_dir": "", "environment": map[string]string{}, "lock_token": hold.Token()})
		*binding = raw
		return
	}
	if req, ok := d.input.(map[string]any); ok {
		if env, ok := req["env"].(map[string]string); ok {
			env[wslock.EnvToken] = hold.Token()
		}
	}
}

// recoverBundles rolls back, whole, any file bundle a crash left begun in
// this run, before its next driver does anything else.
func (e *Engine) recoverBundles(ctx context.Context, runID, joinToken string) error {
	dir := filepath.Join(e.ProjectDir, "journal", "bundles", runID)
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	input, _ := json.Marshal(map[string]string{"run_id": runID})
	binding, _ := json.Marshal(map[string]any{"project_dir": e.ProjectDir})
	if joinToken == "" {
		joinToken = e.LockToken
	}
	hold, err := wslock.AcquireJoining(ctx, e.ProjectDir, wslock.Exclusive, joinToken)
	if err != nil {
		return err
	}
	defer hold.Release()
	res, _, err := e.Host.Invoke(context.WithoutCancel(ctx), &sdk.Call{Capability: "fs.recover", Input: input, Context: sdk.Context{
		RunID: runID, CallID: runID + "#recover", WorkspaceRoot: e.Workspace, Reach: "inputs", Binding: binding, Clock: e.Clock(),
	}}, 0)
	if err != nil {
		return err
	}
	if res.Status != sdk.StatusOK {
		return &recoverError{code: res.Code, msg: res.Message}
	}
	return nil
}

type recoverError struct{ code, msg string }

func (r *recoverError) Error() string     { return "recovering a begun file bundle: " + r.msg }
func (r *recoverError) ErrorCode() string { return r.code }
