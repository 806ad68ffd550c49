package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/kernel/credential"
)

// Every tool result the server sends passes the taint set: its text, its
// structured content (raw or not) and a handler's error.
func TestResultsAreScrubbed(t *testing.T) {
	const secret = "tok-5e2f-mcp-result"
	var taint credential.Taint
	taint.Add(secret)
	handler := scrubResults(&taint)(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "echo " + secret}},
			StructuredContent: map[string]any{"echo": secret},
		}, errors.New("failed with " + secret)
	})
	res, err := handler(context.Background(), "tools/call", nil)
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), secret) || !strings.Contains(string(raw), credential.Redacted) {
		t.Fatalf("result not scrubbed: %s", raw)
	}
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("error not scrubbed: %v", err)
	}
	raw2 := json.RawMessage(`{"echo":"` + secret + `"}`)
	handler = scrubResults(&taint)(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.CallToolResult{StructuredContent: raw2}, nil
	})
	res, _ = handler(context.Background(), "tools/call", nil)
	if sc := res.(*mcp.CallToolResult).StructuredContent.(json.RawMessage); strings.Contains(string(sc), secret) {
		t.Fatalf("raw structured content not scrubbed: %s", sc)
	}
}
