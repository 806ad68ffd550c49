package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

// childEnv makes the test binary a plugin process instead of a test run:
// it reads one call from stdin, invokes the fs plugin on it and prints the
// result. Crash and concurrency tests run it as a real child process, so
// an exit mid-bundle is a real process dying with its locks and files.
const childEnv = "RUNX_FS_TEST_CHILD"

// childRecover, as a child call's capability, runs the Recover RPC's
// implementation for the call's run instead of Invoke.
const childRecover = "recover"

// childCall is what the parent sends a child on stdin.
type childCall struct {
	Capability string          `json:"capability"`
	Context    plugin.Context  `json:"context"`
	Input      json.RawMessage `json:"input"`
}

// childResult is what a child prints.
type childResult struct {
	Status  string          `json:"status"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Output  json.RawMessage `json:"output,omitempty"`
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "invoke" {
		os.Exit(serveChild())
	}
	os.Exit(m.Run())
}

func serveChild() int {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var c childCall
	if err := json.Unmarshal(raw, &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var res *plugin.Result
	if c.Capability == childRecover {
		res = New().Recover(context.Background(), &plugin.Call{Capability: CapabilityApplyBundle, Context: c.Context})
	} else {
		res = New().Invoke(context.Background(), &plugin.Call{Capability: c.Capability, Context: c.Context, Input: c.Input})
	}
	out, _ := json.Marshal(childResult{Status: res.Status, Code: string(res.Code), Message: res.Message, Output: res.Output})
	os.Stdout.Write(out)
	return 0
}
