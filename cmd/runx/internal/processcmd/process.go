// Package processcmd is `runx process list|read|stop`: the person's view of
// the processes runs in this project started (and the commands they ran),
// through the process tools' own capabilities, so the CLI reads exactly
// what a run reads, with every actor's processes in reach.
package processcmd

import (
	"context"
	"encoding/json"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/spf13/cobra"
)

// Capabilities the command calls.
const (
	listCapability = "process.list"
	readCapability = "process.read"
	stopCapability = "process.stop"
)

// maxAnswer bounds one answer: a page of a log (4 MiB) as JSON.
const maxAnswer = 16 << 20

// New wires `runx process` and its verbs.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "process", Short: "List, read and stop the processes runs started"}
	cmd.AddCommand(NewList(f, nil), NewRead(f, nil), NewStop(f, nil))
	return cmd
}

// invoke calls a process tool as the person: every actor's processes are in
// reach, and the call is keyed by this invocation alone.
func invoke(ctx context.Context, k *run.Kernel, capability string, input any, out any) error {
	raw, err := json.Marshal(input)
	if err != nil {
		return err
	}
	binding, _ := json.Marshal(map[string]any{"project_dir": k.Options.ProjectDir, "all_actors": true})
	res, _, err := k.Invoke(ctx, &sdk.Call{
		Capability: capability,
		Input:      raw,
		Context: sdk.Context{
			RunID: "cli", StepAddress: capability, CallID: "cli#" + capability + "@" + time.Now().UTC().Format(time.RFC3339Nano),
			Attempt: 1, WorkspaceRoot: k.Options.Workspace, Reach: "workspace", Binding: binding,
		},
	}, maxAnswer)
	if err != nil {
		return err
	}
	if res.Status != sdk.StatusOK {
		return contract.Errorf(res.Code, "%s", res.Message)
	}
	return json.Unmarshal(res.Output, out)
}

// Process is the part of runx.process.v1 the command shows.
type Process struct {
	ProcessID string    `json:"process_id"`
	Kind      string    `json:"kind"`
	Actor     string    `json:"actor"`
	Argv      []string  `json:"argv"`
	Cwd       string    `json:"cwd"`
	State     string    `json:"state"`
	Running   bool      `json:"running"`
	CreatedAt time.Time `json:"created_at"`
	ExitCode  *int      `json:"exit_code,omitempty"`
	Signal    string    `json:"signal,omitempty"`
	Message   string    `json:"message,omitempty"`
}
