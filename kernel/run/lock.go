package run

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/kernel/wslock"
)

// holdWorkspace takes the workspace lock for a call, joining a hold this
// process was started under (RUNX_WORKSPACE_LOCK_TOKEN) instead of waiting
// on itself.
func (rc *runCtx) holdWorkspace(ctx context.Context, mode wslock.Mode) (*wslock.Hold, error) {
	if mode == 0 {
		return nil, nil
	}
	return wslock.AcquireJoining(ctx, rc.e.ProjectDir, mode, rc.e.LockToken)
}

// withLockToken hands a call made under an exclusive hold the token that
// lets a runx it starts join the hold: in the binding as lock_token (a
// capability reads its delivered context from there, never from an input a
// caller wrote), and for a command step also in the process's environment,
// which is that role's input.
func withLockToken(d *dispatch, hold *wslock.Hold, binding *json.RawMessage) {
	if hold == nil || hold.Token() == "" {
		return
	}
	b := map[string]any{}
	if len(*binding) > 0 {
		_ = json.Unmarshal(*binding, &b)
	}
	b["lock_token"] = hold.Token()
	*binding, _ = json.Marshal(b)
	if !d.commandRole {
		return
	}
	if req, ok := d.input.(map[string]any); ok {
		if env, ok := req["env"].(map[string]string); ok {
			env[wslock.EnvToken] = hold.Token()
		}
	}
}
