package http

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// notesServer is a real MCP server (streamable HTTP) with two tools:
// get_note answers the arguments and the session's Authorization header
// it received; broken answers a tool error. hits counts HTTP requests.
func notesServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "get_note", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, _ := json.Marshal(map[string]any{"arguments": req.Params.Arguments, "auth": req.Extra.Header.Get("Authorization"), "key": req.Extra.Header.Get("Idempotency-Key")})
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(out), Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such note"}}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "standin", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: plugin.MCPStandInUnmatched, Message: "no entry matches"}
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func toolCall(t *testing.T, base, tool, verb string, replay bool, endpoint string) *plugin.Call {
	t.Helper()
	b := plugin.ConnectorBinding{Connector: "notes", Version: "1", Operation: "note.get", Verb: verb, BaseURL: base,
		Credential: &plugin.ConnectorCredential{Variable: "NOTES_TOKEN", Header: "Authorization", Scheme: "Bearer"},
		Request:    plugin.RequestTemplate{Tool: tool, Body: map[string]any{"id": "$input.id", "tags": []any{"a"}}},
		Replay:     replay, MCPEndpoint: endpoint}
	if verb == "write" {
		b.IdempotencyHeader = "Idempotency-Key"
	}
	raw, _ := json.Marshal(b)
	return &plugin.Call{Capability: CapabilityRequest, Input: []byte(`{"id":"n1"}`), Context: plugin.Context{
		Binding: raw, Credentials: map[string]string{"NOTES_TOKEN": "s3cret"}, IdempotencyKey: "pk-9",
	}}
}

// A tool operation opens an MCP session with the server at base_url, whose
// requests carry the credential and a write's provider key as session
// headers, calls the tool with the rendered arguments, and answers the
// tool's structured result as the response body.
func TestToolCallOverMCP(t *testing.T) {
	srv, _ := notesServer(t)
	res := New().Invoke(context.Background(), toolCall(t, srv.URL+"/mcp", "get_note", "write", false, ""))
	if res.Status != plugin.StatusOK {
		t.Fatalf("got %+v", res)
	}
	var out struct {
		Status int `json:"status"`
		Body   struct {
			Arguments map[string]any `json:"arguments"`
			Auth, Key string
		} `json:"body"`
	}
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != 200 || out.Body.Arguments["id"] != "n1" || out.Body.Auth != "Bearer s3cret" || out.Body.Key != "pk-9" {
		t.Fatalf("answer %s", res.Output)
	}
	if !strings.Contains(string(res.Evidence), `"tool":"get_note"`) {
		t.Fatalf("evidence %s", res.Evidence)
	}
}

// A tool error is the provider's refusal, with its own text bounded; a
// JSON-RPC error is one too, and only a test's stand-in code under a
// test's binding reads as test_mcp_unmatched.
func TestToolCallRefusals(t *testing.T) {
	srv, _ := notesServer(t)
	res := New().Invoke(context.Background(), toolCall(t, srv.URL, "broken", "read", false, ""))
	if res.Status != plugin.StatusRefused || res.Code != errcode.ProviderRefused || !strings.Contains(res.Message, "no such note") {
		t.Fatalf("tool error: %+v", res)
	}
	res = New().Invoke(context.Background(), toolCall(t, srv.URL, "standin", "read", false, ""))
	if res.Code != errcode.ProviderRefused {
		t.Fatalf("a live server's error code is no stand-in's: %+v", res)
	}
	res = New().Invoke(context.Background(), toolCall(t, "https://notes.runx.invalid", "standin", "read", true, srv.URL))
	if res.Status != plugin.StatusRefused || res.Code != errcode.TestMCPUnmatched {
		t.Fatalf("stand-in unmatched: %+v", res)
	}
}

// Under a test's binding a tool call goes only to its stand-in: with none,
// nothing is sent anywhere, and base_url is never dialled.
func TestToolCallUnderTestWithoutStandIn(t *testing.T) {
	srv, hits := notesServer(t)
	res := New().Invoke(context.Background(), toolCall(t, srv.URL, "get_note", "read", true, ""))
	if res.Status != plugin.StatusRefused || res.Code != errcode.TestMCPUnmatched || hits.Load() != 0 {
		t.Fatalf("got %+v after %d requests", res, hits.Load())
	}
}

// Plain http off loopback is refused before a session opens.
func TestToolCallRefusesPlainHTTP(t *testing.T) {
	res := New().Invoke(context.Background(), toolCall(t, "http://notes.example/mcp", "get_note", "read", false, ""))
	if res.Code != errcode.ConnectorRequestInvalid {
		t.Fatalf("got %+v", res)
	}
}
