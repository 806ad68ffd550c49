package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// mcpStandIn is a test's providers.mcp: one real MCP server (streamable
// HTTP on loopback, the wire format a connector's own server speaks)
// standing in for each connector the test names, at /<connector>. It
// answers a tool call only from the entry matching its tool, exact
// arguments and session headers; anything else it refuses with
// sdk.MCPStandInUnmatched, and the test fails naming the call. The
// connector's operation still renders its call, delivers its credential
// and checks its answer: only the server is the test's.
type mcpStandIn struct {
	calls []*pkg.TestMCPCall
	srv   *http.Server

	mu        sync.Mutex
	counts    []int
	unmatched []string
}

// startMCPStandIn serves the test's providers.mcp for every connector of
// the package whose operations call tools, declared or not (a call no
// entry answers fails the test), and returns each one's endpoint. An entry
// naming any other connector fails the test.
func startMCPStandIn(p *pkg.Package, calls []*pkg.TestMCPCall) (*mcpStandIn, map[string]string, error) {
	tools := map[string]map[string]bool{}
	for name, conn := range p.Connectors {
		if ts := toolsOf(conn); len(ts) > 0 {
			tools[name] = ts
		}
	}
	for _, c := range calls {
		if tools[c.Connector] == nil {
			return nil, nil, contract.Errorf(errcode.TestMCPConnectorUnknown, "providers.mcp names connector %s, and no connector of package %s by that name calls an MCP tool", c.Connector, p.Name)
		}
		tools[c.Connector][c.Tool] = true
	}
	if len(tools) == 0 {
		return nil, nil, nil
	}
	s := &mcpStandIn{calls: calls, counts: make([]int, len(calls))}
	servers := map[string]*mcp.Server{}
	for name, ts := range tools {
		server := mcp.NewServer(&mcp.Implementation{Name: "runx-test-" + name, Version: "0"}, nil)
		for tool := range ts {
			server.AddTool(&mcp.Tool{Name: tool, InputSchema: json.RawMessage(`{"type":"object"}`)}, s.answer(name))
		}
		servers[name] = server
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("providers.mcp: cannot listen on loopback: %v", err)
	}
	handler := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		return servers[strings.TrimPrefix(r.URL.Path, "/")]
	}, nil)
	s.srv = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln) //nolint:errcheck // Serve ends when close closes it
	endpoints := map[string]string{}
	for name := range servers {
		endpoints[name] = "http://" + ln.Addr().String() + "/" + url.PathEscape(name)
	}
	return s, endpoints, nil
}

func toolsOf(c *pkg.Connector) map[string]bool {
	out := map[string]bool{}
	for _, op := range c.Operations {
		if op.Request.Tool != "" {
			out[op.Request.Tool] = true
		}
	}
	return out
}

// answer is connector's tool handler: the matching entry's answer, or the
// refusal that fails the test.
func (s *mcpStandIn) answer(connector string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := canon.CanonicalJSON(orEmptyArgs(req.Params.Arguments))
		if err != nil {
			args = req.Params.Arguments
		}
		var header http.Header
		if req.Extra != nil {
			header = req.Extra.Header
		}
		var near []string
		for i, c := range s.calls {
			want, _ := canon.Canonical(c.Arguments)
			if c.Connector != connector || c.Tool != req.Params.Name || !bytes.Equal(want, args) {
				continue
			}
			if differ := differingHeaders(c.Headers, header); len(differ) > 0 {
				near = append(near, fmt.Sprintf("providers mcp %d differs in its session headers %s", i+1, strings.Join(differ, ", ")))
				continue
			}
			s.mu.Lock()
			s.counts[i]++
			s.mu.Unlock()
			return toolResult(c), nil
		}
		why := fmt.Sprintf("connector %s called the MCP tool %s with arguments %s, and no providers.mcp entry matches its tool, arguments and session headers", connector, req.Params.Name, shown(args))
		if len(near) > 0 {
			why += " (" + strings.Join(near, "; ") + ")"
		}
		s.mu.Lock()
		s.unmatched = append(s.unmatched, why+" ["+string(errcode.TestMCPUnmatched)+"]")
		s.mu.Unlock()
		return nil, &jsonrpc.Error{Code: sdk.MCPStandInUnmatched, Message: why}
	}
}

func orEmptyArgs(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return json.RawMessage(`{}`)
	}
	return raw
}

// differingHeaders names each declared session header the call does not
// carry with exactly its value; never a value, which may be a credential.
func differingHeaders(want map[string]string, got http.Header) []string {
	var out []string
	for k, v := range want {
		if got.Get(k) != v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func toolResult(c *pkg.TestMCPCall) *mcp.CallToolResult {
	if c.Error != "" {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: c.Error}}}
	}
	raw, _ := json.Marshal(c.Result)
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
}

func shown(raw []byte) string {
	if len(raw) > 200 {
		return string(raw[:200]) + "…"
	}
	return string(raw)
}

// close stops the server and its sessions.
func (s *mcpStandIn) close() {
	if s != nil {
		s.srv.Close()
	}
}

// failures names each unmatched call, and each declared call the run
// never made: a declared call is a call the run made.
func (s *mcpStandIn) failures() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.unmatched...)
	for i, n := range s.counts {
		if n == 0 {
			c := s.calls[i]
			out = append(out, fmt.Sprintf("providers mcp %d (%s %s) was declared and never called", i+1, c.Connector, c.Tool))
		}
	}
	return out
}
