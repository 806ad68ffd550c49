// Command runx-plugin-slowstart is a third-party plugin whose first start
// never completes: it leaves a marker in its TMPDIR (the readiness signal a
// test waits on) and blocks before its handshake, so an interrupt lands
// while runx starts it. Once the marker is there, it starts as any plugin
// does, so the interrupted run can be resumed to its end.
package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/sdk/plugin"
)

type slowstart struct{}

func (slowstart) Info() plugin.Info {
	return plugin.Info{
		Name:    "slowstart",
		Version: "1.0.0",
		Capabilities: []plugin.Definition{{
			ID:           "slowstart/hello",
			Summary:      "Answer hello, once the plugin has started.",
			InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["hello"],"properties":{"hello":{"type":"boolean"}}}`),
			Effect:       plugin.EffectNone,
			Approval:     plugin.ApprovalNone,
		}},
	}
}

func (slowstart) Invoke(context.Context, *plugin.Call) *plugin.Result {
	return plugin.OK(json.RawMessage(`{"hello":true}`), nil)
}

func main() {
	marker := filepath.Join(os.TempDir(), "slowstart-starting")
	if _, err := os.Stat(marker); err != nil {
		if err := os.WriteFile(marker, nil, 0o644); err == nil {
			select {}
		}
	}
	plugin.Serve(slowstart{})
}
