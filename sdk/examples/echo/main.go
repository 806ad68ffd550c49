// Command runx-plugin-echo is a third-party runx plugin built as its own
// binary with nothing but the public SDK. It is what a plugin author copies:
// describe capabilities once, answer calls, let plugin.Serve do the rest.
//
// Build it, put it at .runx/plugins/runx-plugin-echo and pin its sha256 in
// .runx/plugins.lock (runx plugin pin echo).
package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

type echo struct{}

func (echo) Info() plugin.Info {
	return plugin.Info{
		Name:    "echo",
		Version: "1.0.0",
		Capabilities: []plugin.Definition{{
			ID:           "echo.shout",
			Summary:      "Return the message in upper case, with the serving process id.",
			InputSchema:  json.RawMessage(`{"type":"object","required":["message"],"properties":{"message":{"type":"string"}},"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"shout":{"type":"string"},"pid":{"type":"integer"}}}`),
			Effect:       plugin.EffectNone,
			Approval:     plugin.ApprovalNone,
		}},
	}
}

func (echo) Invoke(_ context.Context, call *plugin.Call) *plugin.Result {
	var in struct {
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil || in.Message == nil {
		return plugin.Refused(errcode.InputInvalid, "echo.shout takes {\"message\": string}")
	}
	out, err := json.Marshal(map[string]any{"shout": strings.ToUpper(*in.Message), "pid": os.Getpid()})
	if err != nil {
		return plugin.Failed(errcode.OutputInvalid, err.Error())
	}
	return plugin.OK(out, nil)
}

func main() { plugin.Serve(echo{}) }
