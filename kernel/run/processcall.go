package run

import (
	"encoding/json"

	sdk "github.com/runxhq/runx/sdk/plugin"
)

// ProcessCallArgv reports whether call is a process tool's call and, if so,
// the exact argv it would start: what `runx test` providers.processes
// answer in place of the process.
func ProcessCallArgv(call *sdk.Call) ([]string, bool) {
	if call == nil || call.Capability != capabilityProcess {
		return nil, false
	}
	var req struct {
		Argv []string `json:"argv"`
	}
	if err := json.Unmarshal(call.Input, &req); err != nil || len(req.Argv) == 0 {
		return nil, false
	}
	return req.Argv, true
}

// ProcessAnswer is what a process tool's plugin answers for a process that
// exited 0 printing stdout, for a stand-in that answers in its place.
func ProcessAnswer(stdout []byte) ([]byte, error) {
	return json.Marshal(processAnswer{Stdout: string(stdout)})
}
