package pkg

import (
	"encoding/json"
	"fmt"
	"net/textproto"
)

// TestMCPCall is one providers.mcp entry: a tool call the named
// connector's MCP server answers, matched on the tool, its exact arguments
// and the session headers it must carry (canonical names). It answers with
// Result (the tool's structured content) or, with Error, as a tool error.
type TestMCPCall struct {
	Connector string            `json:"connector"`
	Tool      string            `json:"tool"`
	Arguments map[string]any    `json:"arguments"`
	Headers   map[string]string `json:"headers,omitempty"`
	Result    map[string]any    `json:"result,omitempty"`
	Error     string            `json:"error,omitempty"`
}

// decodeTestMCP reads providers.mcp under the bounds of providers.processes.
func decodeTestMCP(d decoder, e *entry) (out []*TestMCPCall, err error) {
	if e.value.kind != seqNode || len(e.value.items) > MaxTestProcesses {
		return nil, d.fail(e.value.pos, "providers mcp must be a list of at most %d {connector, tool, arguments, headers, result or error}", MaxTestProcesses)
	}
	seen := map[string]bool{}
	for i, n := range e.value.items {
		label, c := fmt.Sprintf("providers mcp %d", i+1), &TestMCPCall{Arguments: map[string]any{}, Headers: map[string]string{}}
		f, err := d.object(n, label, "connector", "tool", "arguments", "headers", "result", "error")
		if err == nil {
			c.Connector, err = d.nonEmpty(f, "connector", label+" connector")
		}
		if err == nil {
			c.Tool, err = d.nonEmpty(f, "tool", label+" tool")
		}
		if ae := f.get("arguments"); err == nil && ae != nil {
			c.Arguments, err = d.rawMap(ae, label+" arguments")
		}
		var hs map[string]string
		if he := f.get("headers"); err == nil && he != nil {
			hs, err = d.stringMap(he, label+" headers")
		}
		re, ee := f.get("result"), f.get("error")
		switch {
		case err != nil:
			return nil, err
		case c.Connector == "" || c.Tool == "" || (re == nil) == (ee == nil):
			return nil, d.fail(n.pos, "%s needs the connector whose MCP server it stands in for, the tool, and one answer: result (the tool's structured result) or error (a tool error's text)", label)
		case re != nil:
			c.Result, err = d.rawMap(re, label+" result")
		default:
			c.Error, err = d.nonEmpty(f, "error", label+" error")
		}
		for k, v := range hs {
			if !headerToken.MatchString(k) {
				return nil, d.fail(f.get("headers").value.pos, "%s headers: %q is no HTTP header name", label, k)
			}
			c.Headers[textproto.CanonicalMIMEHeaderKey(k)] = v
		}
		key, _ := json.Marshal([]any{c.Connector, c.Tool, c.Arguments, c.Headers})
		res, _ := json.Marshal(c.Result)
		switch {
		case err != nil:
			return nil, err
		case len(key) > MaxTestProcessArgs || len(res) > MaxTestProcessResult:
			return nil, d.fail(n.pos, "%s exceeds %d bytes of arguments or %d of result", label, MaxTestProcessArgs, MaxTestProcessResult)
		case seen[string(key)]:
			return nil, d.fail(n.pos, "%s repeats the connector, tool, arguments and headers of an earlier call; each call is answered once", label)
		}
		seen[string(key)] = true
		out = append(out, c)
	}
	return out, nil
}
