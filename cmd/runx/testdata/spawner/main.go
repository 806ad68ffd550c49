// Command runx-plugin-spawner is a third-party plugin that starts a child
// process of its own and leaves it running, for the test that a plugin's
// children die with it when runx stops the plugin.
package main

import (
	"context"
	"encoding/json"
	"os/exec"

	"github.com/runxhq/runx/sdk/plugin"
)

type spawner struct{}

func (spawner) Info() plugin.Info {
	return plugin.Info{
		Name:    "spawner",
		Version: "1.0.0",
		Capabilities: []plugin.Definition{{
			ID:           "spawner/spawn",
			Summary:      "Start a long sleep as the plugin's own child and answer its pid.",
			InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["pid"],"properties":{"pid":{"type":"integer"}}}`),
			Effect:       plugin.EffectNone,
			Approval:     plugin.ApprovalNone,
		}},
	}
}

func (spawner) Invoke(_ context.Context, _ *plugin.Call) *plugin.Result {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		return plugin.Failed("spawn_failed", err.Error())
	}
	go func() { _ = cmd.Wait() }()
	out, _ := json.Marshal(map[string]int{"pid": cmd.Process.Pid})
	return plugin.OK(out, nil)
}

func main() { plugin.Serve(spawner{}) }
