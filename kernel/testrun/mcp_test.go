package testrun

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

type withHeader struct{ h http.Header }

func (t withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// session opens an MCP client session with endpoint, every request
// carrying header.
func session(t *testing.T, endpoint string, header http.Header) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withHeader{header}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func notesPackage() *pkg.Package {
	tool := func(name string) *pkg.ConnectorOperation {
		return &pkg.ConnectorOperation{Name: name, Request: pkg.OperationRequest{Tool: name}}
	}
	return &pkg.Package{Name: "acme", Connectors: map[string]*pkg.Connector{
		"notes": {ID: "notes", Operations: []*pkg.ConnectorOperation{tool("get_note"), tool("list_notes")}},
		"plain": {ID: "plain", Operations: []*pkg.ConnectorOperation{{Name: "get", Request: pkg.OperationRequest{Method: "GET", Path: "/x"}}}},
	}}
}

// The stand-in is a real MCP server: a call matching an entry's tool,
// exact arguments and session headers gets its answer; any other call of a
// tool the connector offers is refused with the stand-in's code and fails
// the test, naming the header that differs but never its value; an entry
// never called fails it too.
func TestMCPStandInMatchesToolArgumentsAndHeaders(t *testing.T) {
	calls := []*pkg.TestMCPCall{
		{Connector: "notes", Tool: "get_note", Arguments: map[string]any{"id": "n1", "n": int64(2)}, Headers: map[string]string{"Authorization": "Bearer tok-77"}, Result: map[string]any{"title": "hello"}},
		{Connector: "notes", Tool: "get_note", Arguments: map[string]any{"id": "gone"}, Error: "no such note"},
		{Connector: "notes", Tool: "list_notes", Arguments: map[string]any{}, Result: map[string]any{}},
	}
	s, endpoints, err := startMCPStandIn(notesPackage(), calls)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if len(endpoints) != 1 || endpoints["notes"] == "" {
		t.Fatalf("endpoints %v: only a connector that calls tools is stood in for", endpoints)
	}
	cs := session(t, endpoints["notes"], http.Header{"Authorization": {"Bearer tok-77"}})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"n": 2, "id": "n1"}})
	if err != nil || res.IsError {
		t.Fatalf("matched call: %+v %v", res, err)
	}
	if got, _ := res.StructuredContent.(map[string]any); got["title"] != "hello" {
		t.Fatalf("structured result %#v", res.StructuredContent)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": "gone"}})
	if err != nil || !res.IsError {
		t.Fatalf("a declared error answers as a tool error: %+v %v", res, err)
	}
	other := session(t, endpoints["notes"], http.Header{"Authorization": {"Bearer someone-else"}})
	_, err = other.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": "n1", "n": 2}})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != sdk.MCPStandInUnmatched {
		t.Fatalf("another credential: want the stand-in's refusal, got %v", err)
	}
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": "n1"}})
	if !errors.As(err, &wire) || wire.Code != sdk.MCPStandInUnmatched {
		t.Fatalf("other arguments: want the stand-in's refusal, got %v", err)
	}
	failures := strings.Join(s.failures(), "\n")
	for _, want := range []string{
		"providers mcp 1 differs in its session headers Authorization",
		`called the MCP tool get_note with arguments {"id":"n1"}, and no providers.mcp entry matches its tool, arguments and session headers [test_mcp_unmatched]`,
		"providers mcp 3 (notes list_notes) was declared and never called",
	} {
		if !strings.Contains(failures, want) {
			t.Errorf("failures lack %q:\n%s", want, failures)
		}
	}
	if strings.Contains(failures, "someone-else") || strings.Contains(failures, "tok-77") {
		t.Errorf("a header value reached the failures:\n%s", failures)
	}
}

// Every connector of the package that calls a tool is stood in for even
// when the test declares no entry: its calls fail the test, with no live
// fallback. An entry naming a connector that calls no tool fails the test
// before the run.
func TestMCPStandInWithoutEntriesAndUnknownConnectors(t *testing.T) {
	s, endpoints, err := startMCPStandIn(notesPackage(), nil)
	if err != nil || endpoints["notes"] == "" {
		t.Fatalf("no entries: %v %v", endpoints, err)
	}
	defer s.close()
	_, err = session(t, endpoints["notes"], nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "list_notes"})
	if err == nil || len(s.failures()) != 1 {
		t.Fatalf("an undeclared call: %v, failures %v", err, s.failures())
	}
	for _, name := range []string{"plain", "absent"} {
		_, _, err := startMCPStandIn(notesPackage(), []*pkg.TestMCPCall{{Connector: name, Tool: "get", Arguments: map[string]any{}}})
		if contract.CodeOf(err) != "test_mcp_connector_unknown" {
			t.Errorf("connector %s: want test_mcp_connector_unknown, got %v", name, err)
		}
	}
	if s, endpoints, err := startMCPStandIn(&pkg.Package{Name: "none"}, nil); s != nil || endpoints != nil || err != nil {
		t.Fatalf("a package that calls no tool starts no server: %v %v %v", s, endpoints, err)
	}
}
