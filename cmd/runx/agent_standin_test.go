package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// providerStandIn is a local HTTP server speaking one provider dialect's
// real wire format, streamed: each request is recorded and answered by the
// scenario's script with a tool call or text, in that dialect's events.
type providerStandIn struct {
	t       *testing.T
	dialect string
	mu      sync.Mutex
	reqs    []map[string]any
	paths   []string
	headers []http.Header
	script  func(n int, body map[string]any) standInAnswer
	srv     *httptest.Server
	// gate, when set, is called before answering (concurrency tests).
	gate func()
}

// standInAnswer is what one round answers: calls, text, or an error.
type standInAnswer struct {
	calls  [][3]string // id, name, JSON arguments
	text   string
	status int
	errMsg string
}

func newProviderStandIn(t *testing.T, dialect string, script func(n int, body map[string]any) standInAnswer) *providerStandIn {
	s := &providerStandIn{t: t, dialect: dialect, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *providerStandIn) requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.reqs...)
}

func (s *providerStandIn) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, body)
	s.paths = append(s.paths, r.URL.RequestURI())
	s.headers = append(s.headers, r.Header.Clone())
	s.mu.Unlock()
	if s.gate != nil {
		s.gate()
	}
	a := s.script(n, body)
	if a.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		msg, _ := json.Marshal(a.errMsg)
		if s.dialect == "anthropic_messages" {
			fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":%s}}`, msg)
		} else {
			fmt.Fprintf(w, `{"error":{"message":%s,"type":"invalid_request_error","code":"invalid_api_key"}}`, msg)
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range s.events(a) {
		if name, data, ok := strings.Cut(e, "\n"); ok {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		} else {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
		w.(http.Flusher).Flush()
	}
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// events renders an answer as the dialect streams it.
func (s *providerStandIn) events(a standInAnswer) []string {
	var ev []string
	switch s.dialect {
	case "chat_completions":
		if a.text != "" {
			ev = append(ev, `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":`+q(a.text)+`}}]}`)
		}
		for i, c := range a.calls {
			half := len(c[2]) / 2
			ev = append(ev,
				fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":%s}}]}}]}`, i, q(c[0]), q(c[1]), q(c[2][:half])),
				fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}}]}`, i, q(c[2][half:])))
		}
		ev = append(ev, `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`, `[DONE]`)
	case "anthropic_messages":
		ev = append(ev, "message_start\n"+`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":100,"output_tokens":1}}}`)
		i := 0
		if a.text != "" {
			ev = append(ev, "content_block_start\n"+`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				"content_block_delta\n"+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+q(a.text)+`}}`,
				"content_block_stop\n"+`{"type":"content_block_stop","index":0}`)
			i++
		}
		for _, c := range a.calls {
			ev = append(ev, "content_block_start\n"+fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, i, q(c[0]), q(c[1])),
				"content_block_delta\n"+fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, q(c[2])),
				"content_block_stop\n"+fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
			i++
		}
		ev = append(ev, "message_delta\n"+`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}`, "message_stop\n"+`{"type":"message_stop"}`)
	case "openai_responses":
		var out []string
		if a.text != "" {
			out = append(out, `{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":`+q(a.text)+`,"annotations":[]}]}`)
		}
		for _, c := range a.calls {
			out = append(out, fmt.Sprintf(`{"type":"function_call","id":"fc_%s","call_id":%s,"name":%s,"arguments":%s,"status":"completed"}`, c[0], q(c[0]), q(c[1]), q(c[2])))
		}
		ev = append(ev, "response.created\n"+`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[]}}`)
		for i, o := range out {
			ev = append(ev, "response.output_item.done\n"+fmt.Sprintf(`{"type":"response.output_item.done","sequence_number":%d,"output_index":%d,"item":%s}`, i+1, i, o))
		}
		ev = append(ev, "response.completed\n"+`{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed","output":[`+strings.Join(out, ",")+`],"usage":{"input_tokens":100,"output_tokens":20,"total_tokens":120}}}`)
	case "gemini":
		if a.text != "" {
			ev = append(ev, `{"candidates":[{"content":{"role":"model","parts":[{"text":`+q(a.text)+`}]},"index":0}]}`)
		}
		var parts []string
		for _, c := range a.calls {
			parts = append(parts, fmt.Sprintf(`{"functionCall":{"name":%s,"args":%s}}`, q(c[1]), c[2]))
		}
		if len(parts) > 0 {
			ev = append(ev, `{"candidates":[{"content":{"role":"model","parts":[`+strings.Join(parts, ",")+`]},"finishReason":"STOP","index":0}]}`)
		}
		ev = append(ev, `{"candidates":[],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":20,"totalTokenCount":120}}`)
	}
	return ev
}
