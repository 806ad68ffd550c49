package run

import (
	"context"
	"encoding/json"

	sdk "github.com/runxhq/runx/sdk/plugin"
)

// ProcessCallArgv reports whether call is a process tool's call (to the
// capability with role command) and, if so, the exact argv it would start,
// read through the capability's argv_input: what `runx test`
// providers.processes answer in place of the process.
func ProcessCallArgv(ctx context.Context, h Invoker, call *sdk.Call) ([]string, bool) {
	if call == nil {
		return nil, false
	}
	def, _, err := h.Definition(ctx, call.Capability)
	if err != nil || !def.HasRole(sdk.RoleCommand) || def.ArgvInput == "" {
		return nil, false
	}
	var input map[string]any
	if err := json.Unmarshal(call.Input, &input); err != nil {
		return nil, false
	}
	argv := argvAt(def, input)
	return argv, len(argv) > 0
}

// ProcessAnswer is what a process tool's plugin answers for a process that
// exited 0 printing stdout, for a stand-in that answers in its place.
func ProcessAnswer(stdout []byte) ([]byte, error) {
	return json.Marshal(processAnswer{Stdout: string(stdout)})
}
