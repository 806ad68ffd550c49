package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

// A conversation at its second round: the model called fs.read, the tool
// answered, and the model is asked again.
func secondRound() *Request {
	return &Request{Model: "m-1", System: "sys", MaxTokens: 100,
		Tools: []Tool{{Name: "fs_read", Description: "read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Messages: []Message{
			{Role: RoleUser, Text: "the turn"},
			{Role: RoleAssistant, Calls: []ToolCall{{ID: "c1", Name: "fs_read", Args: json.RawMessage(`{"path":"a.txt"}`)}}},
			{Role: RoleTool, Results: []ToolResult{{CallID: "c1", Name: "fs_read", Content: `{"status":"success"}`}}},
		}}
}

func round(t *testing.T, dialect, key string, s *standIn) (*Reply, error) {
	t.Helper()
	d, err := DialectFor(dialect)
	if err != nil {
		t.Fatal(err)
	}
	return d.Round(context.Background(), http.DefaultClient, &Provider{Name: "p", Model: "m-1", Dialect: dialect, Endpoint: s.srv.URL + "/v1", Key: key}, secondRound())
}

func wantCall(t *testing.T, r *Reply, id, name, args string) {
	t.Helper()
	if len(r.Calls) != 1 || r.Calls[0].ID != id || r.Calls[0].Name != name {
		t.Fatalf("calls: %+v", r.Calls)
	}
	var a, b any
	_ = json.Unmarshal(r.Calls[0].Args, &a)
	_ = json.Unmarshal([]byte(args), &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("args %s, want %s", r.Calls[0].Args, args)
	}
}

func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func TestChatCompletionsStreamsToolCall(t *testing.T) {
	s := newStandIn(t, sseAnswer(
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"fs_read","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"b.txt\"}"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99}}`,
		`[DONE]`))
	r, err := round(t, DialectChat, "sk-test", s)
	if err != nil {
		t.Fatal(err)
	}
	wantCall(t, r, "call_abc", "fs_read", `{"path":"b.txt"}`)
	if r.Usage != (Usage{82, 17}) {
		t.Fatalf("usage %+v", r.Usage)
	}
	req := s.requests()[0]
	if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("request %s %v", req.Path, req.Header)
	}
	b := req.Body
	if b["model"] != "m-1" || b["stream"] != true || at(b, "stream_options", "include_usage") != true || b["max_tokens"] != 100.0 {
		t.Fatalf("body %v", b)
	}
	if at(b, "messages", 0, "role") != "system" || at(b, "messages", 2, "tool_calls", 0, "function", "arguments") != `{"path":"a.txt"}` ||
		at(b, "messages", 3, "role") != "tool" || at(b, "messages", 3, "tool_call_id") != "c1" {
		t.Fatalf("messages %v", b["messages"])
	}
	if at(b, "tools", 0, "type") != "function" || at(b, "tools", 0, "function", "name") != "fs_read" || at(b, "tools", 0, "function", "parameters", "type") != "object" {
		t.Fatalf("tools %v", b["tools"])
	}
}

func TestChatCompletionsWholeAnswerAndError(t *testing.T) {
	s := newStandIn(t,
		jsonAnswer(200, `{"id":"chatcmpl-2","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}}`),
		jsonAnswer(401, `{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
	r, err := round(t, DialectChat, "", s)
	if err != nil || r.Text != "done" || r.Usage != (Usage{9, 12}) {
		t.Fatalf("%+v %v", r, err)
	}
	if s.requests()[0].Header.Get("Authorization") != "" {
		t.Fatal("a provider without a key is sent no Authorization")
	}
	_, err = round(t, DialectChat, "sk-test", s)
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Status != 401 || pe.Message != "Incorrect API key provided: sk-test." {
		t.Fatalf("%v", err)
	}
}

func TestAnthropicMessagesStreamsToolUse(t *testing.T) {
	s := newStandIn(t, sseAnswer(
		"message_start\n"+`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m-1","stop_reason":null,"usage":{"input_tokens":472,"output_tokens":2}}}`,
		"content_block_start\n"+`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"ping\n"+`{"type":"ping"}`,
		"content_block_delta\n"+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Reading it."}}`,
		"content_block_stop\n"+`{"type":"content_block_stop","index":0}`,
		"content_block_start\n"+`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"fs_read","input":{}}}`,
		"content_block_delta\n"+`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
		"content_block_delta\n"+`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"b.t"}}`,
		"content_block_delta\n"+`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"xt\"}"}}`,
		"content_block_stop\n"+`{"type":"content_block_stop","index":1}`,
		"message_delta\n"+`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}`,
		"message_stop\n"+`{"type":"message_stop"}`))
	r, err := round(t, DialectAnthropic, "ak-test", s)
	if err != nil {
		t.Fatal(err)
	}
	wantCall(t, r, "toolu_01", "fs_read", `{"path":"b.txt"}`)
	if r.Text != "Reading it." || r.Usage != (Usage{472, 89}) {
		t.Fatalf("%+v", r)
	}
	req := s.requests()[0]
	if req.Path != "/v1/messages" || req.Header.Get("x-api-key") != "ak-test" || req.Header.Get("anthropic-version") != AnthropicVersion {
		t.Fatalf("request %s %v", req.Path, req.Header)
	}
	b := req.Body
	if b["system"] != "sys" || b["max_tokens"] != 100.0 || b["stream"] != true ||
		at(b, "messages", 1, "content", 0, "type") != "tool_use" || at(b, "messages", 1, "content", 0, "input", "path") != "a.txt" ||
		at(b, "messages", 2, "role") != "user" || at(b, "messages", 2, "content", 0, "type") != "tool_result" || at(b, "messages", 2, "content", 0, "tool_use_id") != "c1" ||
		at(b, "tools", 0, "input_schema", "type") != "object" {
		t.Fatalf("body %v", b)
	}
}

func TestAnthropicMessagesErrors(t *testing.T) {
	s := newStandIn(t,
		jsonAnswer(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`),
		sseAnswer("message_start\n"+`{"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}`,
			"error\n"+`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	_, err := round(t, DialectAnthropic, "k", s)
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Status != 401 || pe.Message != "invalid x-api-key" {
		t.Fatalf("%v", err)
	}
	_, err = round(t, DialectAnthropic, "k", s)
	if !errors.As(err, &pe) || pe.Message != "Overloaded" {
		t.Fatalf("%v", err)
	}
}

func TestOpenAIResponsesStreamsFunctionCall(t *testing.T) {
	s := newStandIn(t, sseAnswer(
		"response.created\n"+`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}`,
		"response.output_item.added\n"+`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_xyz","name":"fs_read","arguments":"","status":"in_progress"}}`,
		"response.function_call_arguments.delta\n"+`{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"path\":\"b.txt\"}"}`,
		"response.function_call_arguments.done\n"+`{"type":"response.function_call_arguments.done","sequence_number":3,"item_id":"fc_1","output_index":0,"arguments":"{\"path\":\"b.txt\"}"}`,
		"response.output_item.done\n"+`{"type":"response.output_item.done","sequence_number":4,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_xyz","name":"fs_read","arguments":"{\"path\":\"b.txt\"}","status":"completed"}}`,
		"response.completed\n"+`{"type":"response.completed","sequence_number":5,"response":{"id":"resp_1","object":"response","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_xyz","name":"fs_read","arguments":"{\"path\":\"b.txt\"}","status":"completed"}],"usage":{"input_tokens":36,"output_tokens":87,"total_tokens":123}}}`))
	r, err := round(t, DialectResponses, "ok-test", s)
	if err != nil {
		t.Fatal(err)
	}
	wantCall(t, r, "call_xyz", "fs_read", `{"path":"b.txt"}`)
	if r.Usage != (Usage{36, 87}) {
		t.Fatalf("%+v", r.Usage)
	}
	req := s.requests()[0]
	if req.Path != "/v1/responses" || req.Header.Get("Authorization") != "Bearer ok-test" {
		t.Fatalf("request %s %v", req.Path, req.Header)
	}
	b := req.Body
	if b["instructions"] != "sys" || b["store"] != false || b["stream"] != true || b["max_output_tokens"] != 100.0 ||
		at(b, "input", 0, "role") != "user" || at(b, "input", 1, "type") != "function_call" || at(b, "input", 1, "call_id") != "c1" ||
		at(b, "input", 2, "type") != "function_call_output" || at(b, "input", 2, "output") != `{"status":"success"}` ||
		at(b, "tools", 0, "type") != "function" || at(b, "tools", 0, "name") != "fs_read" {
		t.Fatalf("body %v", b)
	}
}

func TestOpenAIResponsesFailures(t *testing.T) {
	s := newStandIn(t,
		jsonAnswer(429, `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`),
		sseAnswer("response.failed\n"+`{"type":"response.failed","sequence_number":1,"response":{"id":"resp_2","status":"failed","error":{"code":"server_error","message":"The model failed"},"output":[]}}`),
		jsonAnswer(200, `{"id":"resp_3","object":"response","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"all done","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":2}}`))
	var pe *ProviderError
	if _, err := round(t, DialectResponses, "k", s); !errors.As(err, &pe) || pe.Status != 429 || pe.Message != "Rate limit reached" {
		t.Fatalf("%v", err)
	}
	if _, err := round(t, DialectResponses, "k", s); !errors.As(err, &pe) || pe.Message != "The model failed" {
		t.Fatalf("%v", err)
	}
	if r, err := round(t, DialectResponses, "k", s); err != nil || r.Text != "all done" {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestGeminiStreamsFunctionCall(t *testing.T) {
	s := newStandIn(t, sseAnswer(
		`{"candidates":[{"content":{"parts":[{"text":"Let me read it."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":4},"modelVersion":"m-1"}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"fs_read","args":{"path":"b.txt"}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":12,"totalTokenCount":52},"modelVersion":"m-1"}`))
	r, err := round(t, DialectGemini, "gk-test", s)
	if err != nil {
		t.Fatal(err)
	}
	wantCall(t, r, "call_0", "fs_read", `{"path":"b.txt"}`)
	if r.Text != "Let me read it." || r.Usage != (Usage{40, 12}) {
		t.Fatalf("%+v", r)
	}
	req := s.requests()[0]
	if req.Path != "/v1/models/m-1:streamGenerateContent?alt=sse" || req.Header.Get("x-goog-api-key") != "gk-test" {
		t.Fatalf("request %s %v", req.Path, req.Header)
	}
	b := req.Body
	if at(b, "systemInstruction", "parts", 0, "text") != "sys" || at(b, "contents", 1, "role") != "model" ||
		at(b, "contents", 1, "parts", 0, "functionCall", "name") != "fs_read" ||
		at(b, "contents", 2, "parts", 0, "functionResponse", "name") != "fs_read" ||
		at(b, "contents", 2, "parts", 0, "functionResponse", "response", "output", "status") != "success" ||
		at(b, "tools", 0, "functionDeclarations", 0, "parametersJsonSchema", "type") != "object" ||
		at(b, "generationConfig", "maxOutputTokens") != 100.0 {
		t.Fatalf("body %v", b)
	}
}

func TestGeminiError(t *testing.T) {
	s := newStandIn(t, jsonAnswer(400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`))
	_, err := round(t, DialectGemini, "k", s)
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Status != 400 || pe.Message != "API key not valid. Please pass a valid API key." {
		t.Fatalf("%v", err)
	}
}

func TestUnreachableProvider(t *testing.T) {
	s := newStandIn(t)
	s.srv.Close()
	_, err := round(t, DialectChat, "k", s)
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Status != 0 {
		t.Fatalf("%v", err)
	}
}
