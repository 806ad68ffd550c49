package plugin

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/runxhq/runx/sdk/canon"
)

// RoleConnectorRequest is the capability the kernel sends a connector
// manifest's operation through: it renders the operation's request from
// the binding (the connector's authenticated destination and the
// operation's request template) and the call's input (the operation's
// checked inputs), sends it, and answers with a ConnectorResponse.
const RoleConnectorRequest = "connector.request"

// Typed failures of a connector request.

// ConnectorBinding is what the kernel tells the connector.request
// capability about one operation call, in Context.Binding. It holds no
// secret: the credential's value travels in Context.Credentials under
// Credential.Variable.
type ConnectorBinding struct {
	Connector  string               `json:"connector"`
	Version    string               `json:"version"`
	Operation  string               `json:"operation"`
	Verb       string               `json:"verb"`
	BaseURL    string               `json:"base_url"`
	Credential *ConnectorCredential `json:"credential,omitempty"`
	Request    RequestTemplate      `json:"request"`
	// IdempotencyHeader carries Context.IdempotencyKey (the provider key)
	// on a write whose provider deduplicates.
	IdempotencyHeader string `json:"idempotency_header,omitempty"`
	// Replay marks a runx test: the transport answers only from Exchanges
	// and never reaches the network.
	Replay    bool           `json:"replay,omitempty"`
	Exchanges []HTTPExchange `json:"exchanges,omitempty"`
	// MCPEndpoint, in a runx test, is the loopback MCP server standing in
	// for the connector's own (its providers.mcp); a tool call goes there
	// in place of BaseURL. Empty in a test: no stand-in, nothing is sent.
	MCPEndpoint string `json:"mcp_endpoint,omitempty"`
}

// MCPStandInUnmatched is the JSON-RPC error code a runx test's stand-in
// MCP server answers a tool call it holds no answer for; under a test's
// binding the connector.request capability reports it as
// test_mcp_unmatched.
const MCPStandInUnmatched = -32050

// ConnectorCredential is how the connector's credential is delivered.
type ConnectorCredential struct {
	Variable string `json:"variable"`
	Header   string `json:"header"`
	Scheme   string `json:"scheme,omitempty"`
}

// RequestTemplate is an operation's request as its connector declares it:
// {name} in Path and $input.<name> values in Query and Body are the
// call's inputs.
//
// With Tool, the operation calls that MCP tool on the MCP server at the
// connector's base URL (streamable HTTP), with Body as its arguments.
type RequestTemplate struct {
	Method string            `json:"method,omitempty"`
	Path   string            `json:"path,omitempty"`
	Query  map[string]string `json:"query,omitempty"`
	Tool   string            `json:"tool,omitempty"`
	Body   any               `json:"body,omitempty"` // nil: no body
}

// HTTPExchange is one declared request and the response it gets.
type HTTPExchange struct {
	// Index is the exchange's place in the test's declaration order.
	Index    int          `json:"index"`
	Request  HTTPRequest  `json:"request"`
	Response HTTPResponse `json:"response"`
}

// HTTPRequest identifies a request exactly: method, final URL and body
// (none, or one structural JSON value).
type HTTPRequest struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	// Body is canonical JSON; absent (nil) means no body.
	Body json.RawMessage `json:"body,omitempty"`
}

// HTTPResponse is the answer an exchange gives.
type HTTPResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// ConnectorResponse is the connector.request capability's output: the
// provider's status and its body, decoded as JSON when it is JSON.
type ConnectorResponse struct {
	Status int `json:"status"`
	Body   any `json:"body"`
}

// RenderedRequest is one request ready to send.
type RenderedRequest struct {
	Method string
	URL    string
	// Body is canonical JSON, or nil for none.
	Body []byte
	// Tool is the MCP tool a tool call calls; Body is then its
	// tools/call params.
	Tool string
}

func orEmptyObject(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

// renderPath replaces each {name} of a path template with that input,
// escaped into one path segment.
func renderPath(tmpl string, inputs map[string]any) (string, error) {
	if !strings.Contains(tmpl, "{") {
		return tmpl, nil
	}
	var sb strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			sb.WriteString(tmpl)
			return sb.String(), nil
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("path template %q has an unclosed {", tmpl)
		}
		name := tmpl[i+1 : i+j]
		v, err := scalarText(inputs[name])
		if err != nil {
			return "", fmt.Errorf("path parameter %s: %v", name, err)
		}
		sb.WriteString(tmpl[:i])
		sb.WriteString(url.PathEscape(v))
		tmpl = tmpl[i+j+1:]
	}
}

// Render turns a binding's request template and an operation's inputs into
// the exact request: path parameters are escaped into one segment each,
// so caller input only narrows the connector's base URL, never changes its
// scheme, host or the path above it.
//
// A tool call renders as the JSON-RPC tools/call it sends: POST to the
// base URL with {"name", "arguments"} as its body, so custody, approval
// and the plan digest bind it as they bind any request.
func Render(b *ConnectorBinding, inputs map[string]any) (*RenderedRequest, error) {
	base, err := url.Parse(b.BaseURL)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("connector base_url %q is not an absolute URL", b.BaseURL)
	}
	if b.Request.Tool != "" {
		args, _ := resolveTree(orEmptyObject(b.Request.Body), inputs)
		body, err := canon.Canonical(map[string]any{"name": b.Request.Tool, "arguments": args})
		if err != nil {
			return nil, fmt.Errorf("tool arguments: %v", err)
		}
		return &RenderedRequest{Method: "POST", URL: b.BaseURL, Body: body, Tool: b.Request.Tool}, nil
	}
	path, err := renderPath(b.Request.Path, inputs)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	keys := make([]string, 0, len(b.Request.Query))
	for k := range b.Request.Query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, ok := resolveValue(b.Request.Query[k], inputs)
		if !ok {
			continue
		}
		s, err := scalarText(v)
		if err != nil {
			return nil, fmt.Errorf("query %s: %v", k, err)
		}
		q.Set(k, s)
	}
	u := strings.TrimSuffix(base.Scheme+"://"+base.Host+base.EscapedPath(), "/") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	r := &RenderedRequest{Method: b.Request.Method, URL: u}
	if b.Request.Body != nil {
		body, _ := resolveTree(b.Request.Body, inputs)
		if r.Body, err = canon.Canonical(body); err != nil {
			return nil, fmt.Errorf("request body: %v", err)
		}
	}
	return r, nil
}

// scalarText is a path or query value's text: a string, number or boolean.
func scalarText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return "", fmt.Errorf("must not be empty")
		}
		return x, nil
	case bool, float64, int64, int, json.Number:
		return fmt.Sprint(x), nil
	case nil:
		return "", fmt.Errorf("has no value")
	}
	return "", fmt.Errorf("must be a string, number or boolean")
}

// resolveValue resolves one template value: $input.<name> is that input
// (absent when the input is), $$x is the literal $x, anything else itself.
func resolveValue(v string, inputs map[string]any) (any, bool) {
	if strings.HasPrefix(v, "$$") {
		return v[1:], true
	}
	if name, ok := strings.CutPrefix(v, "$input."); ok {
		x, present := inputs[name]
		return x, present
	}
	return v, true
}

// resolveTree resolves every value of a body template; a map entry whose
// input is absent is left out.
func resolveTree(v any, inputs map[string]any) (any, bool) {
	switch x := v.(type) {
	case string:
		return resolveValue(x, inputs)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, c := range x {
			if r, ok := resolveTree(c, inputs); ok {
				out[k] = r
			}
		}
		return out, true
	case []any:
		out := make([]any, 0, len(x))
		for _, c := range x {
			r, ok := resolveTree(c, inputs)
			if !ok {
				r = nil
			}
			out = append(out, r)
		}
		return out, true
	}
	return v, true
}
