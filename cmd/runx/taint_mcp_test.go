package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/internal/testserver"
)

// The taint set of a long-lived `runx mcp` server spans every run it
// serves (docs/decisions/credentials.md, "The taint set is the process's"): a
// credential delivered to run A's call is scrubbed from run B's result
// too, though B delivered nothing, here when B echoes the value its caller
// passed in. In a fresh server that has delivered nothing the same echo
// passes through: the scrubbing is the delivery's doing.
func TestMCPTaintSpansRunsInOneSession(t *testing.T) {
	provider := testserver.StartProvider(t)
	w := postboxWorkspace(t, provider)
	pinPostbox(t, w)
	repo, _ := filepath.Abs("../..")
	for _, name := range []string{"SKILL.md", "run.yaml", "echo.mjs"} {
		raw, err := os.ReadFile(filepath.Join(repo, "kernel/mcp/testdata/echo", name))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(w.dir, "echo"), 0o755)
		if err := os.WriteFile(filepath.Join(w.dir, "echo", name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	session := func() (func(title string, args map[string]any) string, func()) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		client := mcp.NewClient(&mcp.Implementation{Name: "taint-test", Version: "0.0.1"}, nil)
		s, err := client.Connect(ctx, &mcp.CommandTransport{Command: w.cmd("", nil, "mcp", "./postbox#list", "./echo")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tools, err := s.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		call := func(title string, args map[string]any) string {
			t.Helper()
			for _, tool := range tools.Tools {
				if tool.Title != title {
					continue
				}
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := json.Marshal(res)
				return string(raw)
			}
			var titles []string
			for _, tool := range tools.Tools {
				titles = append(titles, tool.Title)
			}
			t.Fatalf("no tool %s in %v", title, titles)
			return ""
		}
		return call, func() { s.Close(); cancel() }
	}
	echo := map[string]any{"message": postboxToken}

	fresh, done := session()
	if out := fresh("echo#say", echo); !strings.Contains(out, postboxToken) {
		t.Fatalf("a server that delivered nothing has nothing to scrub: %s", out)
	}
	done()

	call, done := session()
	defer done()
	if out := call("postbox#list", map[string]any{}); !strings.Contains(out, `"completed"`) || provider.Requests("GET /v1/messages") != 1 || provider.Unauthorized() != 0 {
		t.Fatalf("run A is delivered the token: %s", out)
	}
	out := call("echo#say", echo)
	if strings.Contains(out, postboxToken) || !strings.Contains(out, "[redacted]") || !strings.Contains(out, `"completed"`) {
		t.Fatalf("run B's result holds the credential run A was delivered: %s", out)
	}
}
