// Command bad is a plugin that breaks one conformance rule, chosen by
// BAD_MODE, so the suite's own tests can prove it notices.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/runxhq/runx/sdk/plugin"
)

type bad struct{ mode string }

func (b bad) Info() plugin.Info {
	id := "bad.call"
	if b.mode == "badinfo" {
		id = "other.call"
	}
	return plugin.Info{Name: "bad", Version: "0.0.1", Capabilities: []plugin.Definition{{
		ID: id, Effect: plugin.EffectNone, Approval: plugin.ApprovalNone,
		InputSchema: []byte(`{"type":"object"}`),
	}}}
}

func (b bad) Invoke(_ context.Context, call *plugin.Call) *plugin.Result {
	switch b.mode {
	case "stdout":
		fmt.Println("polluting stdout")
	case "leak":
		return plugin.Refused("bad_refused", "the password was "+call.Context.Credentials["password"])
	case "untyped":
		return &plugin.Result{Status: plugin.StatusRefused}
	}
	return plugin.OK([]byte(`{}`), nil)
}

func main() { plugin.Serve(bad{mode: os.Getenv("BAD_MODE")}) }
