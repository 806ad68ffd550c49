package mcp

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/kernel/credential"
)

// scrubResults is the MCP boundary of the taint set: every tool result the
// server sends (its text, its structured content) is scrubbed of the values
// the kernel delivered, whichever tool made it.
func scrubResults(t *credential.Taint) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if t.Empty() {
				return res, err
			}
			if err != nil {
				err = t.Error(err)
			}
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
				for _, c := range r.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						tc.Text = t.Scrub(tc.Text)
					}
				}
				switch sc := r.StructuredContent.(type) {
				case json.RawMessage:
					r.StructuredContent = json.RawMessage(t.ScrubJSON(sc))
				case nil:
				default:
					if raw, merr := json.Marshal(sc); merr == nil {
						r.StructuredContent = json.RawMessage(t.ScrubJSON(raw))
					}
				}
			}
			return res, err
		}
	}
}
