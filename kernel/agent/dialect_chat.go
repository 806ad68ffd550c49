package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
)

// chatDialect speaks Chat Completions (POST <endpoint>/chat/completions),
// which any OpenAI-compatible server, a local one included, answers. It
// streams: choices[0].delta carries content and tool_calls by index, the
// last chunk the usage (stream_options.include_usage), then data: [DONE].
type chatDialect struct{}

type chatMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

func (chatDialect) body(p *Provider, req *Request) map[string]any {
	text := func(s string) *string { return &s }
	msgs := []chatMessage{}
	if req.System != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: text(req.System)})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			msgs = append(msgs, chatMessage{Role: "user", Content: text(m.Text)})
		case RoleAssistant:
			cm := chatMessage{Role: "assistant"}
			if m.Text != "" {
				cm.Content = text(m.Text)
			}
			for _, c := range m.Calls {
				tc := chatToolCall{ID: c.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = c.Name, string(c.Args)
				cm.ToolCalls = append(cm.ToolCalls, tc)
			}
			msgs = append(msgs, cm)
		case RoleTool:
			for _, r := range m.Results {
				msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: r.CallID, Content: text(r.Content)})
			}
		}
	}
	tools := make([]map[string]any, 0, len(req.Tools))
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Schema}})
	}
	body := map[string]any{"model": p.Model, "messages": msgs, "stream": true,
		"stream_options": map[string]any{"include_usage": true}}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	if req.MaxTokens > 0 {
		body["max_tokens"] = req.MaxTokens
	}
	return body
}

func (d chatDialect) Round(ctx context.Context, c *http.Client, p *Provider, req *Request) (*Reply, error) {
	headers := map[string]string{"Accept": "text/event-stream"}
	if p.Key != "" {
		headers["Authorization"] = "Bearer " + p.Key
	}
	resp, err := post(ctx, c, p.Endpoint+"/chat/completions", headers, d.body(p, req), errorMessage)
	if err != nil {
		return nil, err
	}
	if !streamed(resp) {
		var whole struct {
			Choices []struct {
				Message chatMessage `json:"message"`
			} `json:"choices"`
			Usage chatUsage `json:"usage"`
		}
		if err := readJSON(resp, &whole); err != nil {
			return nil, err
		}
		r := &Reply{Usage: Usage{whole.Usage.PromptTokens, whole.Usage.CompletionTokens}}
		if len(whole.Choices) > 0 {
			m := whole.Choices[0].Message
			if m.Content != nil {
				r.Text = *m.Content
			}
			for _, tc := range m.ToolCalls {
				r.Calls = append(r.Calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: args(tc.Function.Arguments)})
			}
		}
		return r, nil
	}
	r := &Reply{}
	var text strings.Builder
	type partial struct {
		id, name string
		args     strings.Builder
	}
	calls := map[int]*partial{}
	err = sse(resp, func(_ string, data []byte) (bool, error) {
		if string(data) == "[DONE]" {
			return false, nil
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   *string        `json:"content"`
					ToolCalls []chatToolCall `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
			Usage *chatUsage `json:"usage"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &chunk); err != nil {
			return false, &ProviderError{Status: resp.StatusCode, Message: "a stream chunk is not Chat Completions JSON"}
		}
		if chunk.Error != nil {
			return false, &ProviderError{Status: resp.StatusCode, Message: chunk.Error.Message}
		}
		if chunk.Usage != nil {
			r.Usage = Usage{chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens}
		}
		for _, ch := range chunk.Choices {
			if ch.Delta.Content != nil {
				text.WriteString(*ch.Delta.Content)
			}
			for i, tc := range ch.Delta.ToolCalls {
				idx := i
				if tc.Index != nil {
					idx = *tc.Index
				}
				pc := calls[idx]
				if pc == nil {
					pc = &partial{}
					calls[idx] = pc
				}
				if tc.ID != "" {
					pc.id = tc.ID
				}
				if tc.Function.Name != "" {
					pc.name += tc.Function.Name
				}
				pc.args.WriteString(tc.Function.Arguments)
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	r.Text = text.String()
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		pc := calls[i]
		r.Calls = append(r.Calls, ToolCall{ID: pc.id, Name: pc.name, Args: args(pc.args.String())})
	}
	return r, nil
}
