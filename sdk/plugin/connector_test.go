package plugin

import "testing"

// A tool call renders as the tools/call it sends: POST to the base URL
// exactly, its body the canonical {"arguments", "name"} with the inputs
// resolved (an absent input leaves its field out), so custody and approval
// bind a tool call as any request. No arguments is the empty object.
func TestRenderToolCall(t *testing.T) {
	b := &ConnectorBinding{BaseURL: "https://notes.example/mcp", Request: RequestTemplate{Tool: "get_note",
		Body: map[string]any{"id": "$input.id", "tags": []any{"$input.tag"}, "note": "$input.note", "lit": "$$x"}}}
	r, err := Render(b, map[string]any{"id": "n1", "tag": "home"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != "POST" || r.URL != "https://notes.example/mcp" || r.Tool != "get_note" {
		t.Fatalf("rendered %+v", r)
	}
	if got := string(r.Body); got != `{"arguments":{"id":"n1","lit":"$x","tags":["home"]},"name":"get_note"}` {
		t.Fatalf("body %s", got)
	}
	b.Request.Body = nil
	if r, err = Render(b, nil); err != nil || string(r.Body) != `{"arguments":{},"name":"get_note"}` {
		t.Fatalf("no arguments: %s %v", r.Body, err)
	}
}
