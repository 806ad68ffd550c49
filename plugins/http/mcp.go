package http

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// callTool sends a tool operation: one MCP session (streamable HTTP) with
// the connector's server, opened for this call and closed after it, whose
// every HTTP request carries the session headers (the credential and, for
// a write, the provider key). Under a test's binding the server is the
// test's stand-in (its providers.mcp), never the connector's own: without
// one nothing is sent.
func (p *Plugin) callTool(ctx context.Context, b *plugin.ConnectorBinding, r *plugin.RenderedRequest, headers http.Header) *plugin.Result {
	op := b.Connector + "/" + b.Operation
	endpoint, transport := b.BaseURL, p.transport
	if b.Replay {
		if b.MCPEndpoint == "" {
			return plugin.Refused(errcode.TestMCPUnmatched, fmt.Sprintf("operation %s calls the MCP tool %s, and no providers.mcp entry stands in for connector %s's server; nothing was sent (a test has no live fallback)", op, r.Tool, b.Connector))
		}
		endpoint, transport = b.MCPEndpoint, newTransport()
	}
	u, err := url.Parse(endpoint)
	if err == nil {
		err = requireTLS(u)
	}
	if err != nil {
		return plugin.Refused(errcode.ConnectorRequestInvalid, fmt.Sprintf("operation %s: the MCP server: %v; nothing was sent", op, err))
	}
	var params struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(r.Body, &params); err != nil {
		return plugin.Refused(errcode.ConnectorRequestInvalid, fmt.Sprintf("operation %s: its arguments are not one JSON object; nothing was sent", op))
	}
	origin := originOf(u)
	client := &http.Client{Transport: sessionTransport{next: transport, headers: headers}, CheckRedirect: func(next *http.Request, _ []*http.Request) error {
		return fmt.Errorf("%w: %s's MCP server redirected to %s", errRedirect, op, originOf(next.URL))
	}}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "runx", Version: Version}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return plugin.Failed(errcode.ProviderUnavailable, fmt.Sprintf("operation %s: the MCP server at %s did not open a session; nothing was sent", op, origin))
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: r.Tool, Arguments: params.Arguments})
	var wire *jsonrpc.Error
	switch {
	case err != nil && b.Replay && errors.As(err, &wire) && wire.Code == plugin.MCPStandInUnmatched:
		return plugin.Refused(errcode.TestMCPUnmatched, fmt.Sprintf("operation %s: %s", op, bounded(wire.Message)))
	case err != nil && errors.As(err, &wire):
		return plugin.Refused(errcode.ProviderRefused, fmt.Sprintf("operation %s: the MCP server refused the call to %s: %s", op, r.Tool, bounded(wire.Message)))
	case err != nil:
		return transportFailure(op, b.Verb == "write", true, err)
	}
	evidence, _ := json.Marshal(map[string]any{"mcp_server": origin, "tool": r.Tool})
	if res.IsError {
		out := plugin.Refused(errcode.ProviderRefused, fmt.Sprintf("operation %s: the tool %s answered an error: %s", op, r.Tool, bounded(toolText(res))))
		out.Evidence = evidence
		return out
	}
	var body any = res.StructuredContent
	if body == nil {
		text := toolText(res)
		if json.Unmarshal([]byte(text), &body) != nil {
			body = text
		}
	}
	raw, err := json.Marshal(plugin.ConnectorResponse{Status: http.StatusOK, Body: body})
	if err != nil {
		return answerFailure(op, b.Verb == "write", "its tool result is not JSON")
	}
	return plugin.OK(raw, evidence)
}

// toolText is a tool result's text content, joined.
func toolText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func bounded(msg string) string {
	if len(msg) > maxMessageBytes {
		return msg[:maxMessageBytes] + "…"
	}
	return msg
}

// sessionTransport adds the session headers to every request of an MCP
// session and bounds every answer's body.
type sessionTransport struct {
	next    http.RoundTripper
	headers http.Header
}

func (t sessionTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header[k] = v
	}
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: MaxResponseBytes}
	}
	return resp, err
}

// limitedBody fails a read past the response ceiling.
type limitedBody struct {
	io.ReadCloser
	left int64
}

var errTooLarge = errors.New("the MCP server's answer is over the response ceiling")

func (l *limitedBody) Read(p []byte) (int, error) {
	n, err := l.ReadCloser.Read(p)
	if l.left -= int64(n); l.left < 0 {
		return n, errTooLarge
	}
	return n, err
}
