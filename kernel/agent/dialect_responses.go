package agent

import (
	"context"
	"encoding/json"
	"net/http"
)

// responsesDialect speaks OpenAI's Responses API (POST
// <endpoint>/responses). It streams semantic events; the terminal
// response.completed carries the whole response (its output items, message
// and function_call, and its usage), response.failed and error the
// provider's message. Conversation state is sent whole each round
// (store: false), so nothing of a run is kept by the provider.
type responsesDialect struct{}

type responsesItem struct {
	Type      string `json:"type"`
	Role      string `json:"role,omitempty"`
	Content   any    `json:"content,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Output    string `json:"output,omitempty"`
}

type responsesResponse struct {
	Status string `json:"status"`
	Output []struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"output"`
	Usage struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (responsesDialect) body(p *Provider, req *Request) map[string]any {
	input := []responsesItem{}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			input = append(input, responsesItem{Type: "message", Role: "user", Content: m.Text})
		case RoleAssistant:
			if m.Text != "" {
				input = append(input, responsesItem{Type: "message", Role: "assistant", Content: m.Text})
			}
			for _, c := range m.Calls {
				input = append(input, responsesItem{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: string(c.Args)})
			}
		case RoleTool:
			for _, r := range m.Results {
				input = append(input, responsesItem{Type: "function_call_output", CallID: r.CallID, Output: r.Content})
			}
		}
	}
	tools := make([]map[string]any, 0, len(req.Tools))
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.Schema, "strict": false})
	}
	body := map[string]any{"model": p.Model, "input": input, "stream": true, "store": false}
	if req.System != "" {
		body["instructions"] = req.System
	}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	if req.MaxTokens > 0 {
		body["max_output_tokens"] = req.MaxTokens
	}
	return body
}

func (d responsesDialect) Round(ctx context.Context, c *http.Client, p *Provider, req *Request) (*Reply, error) {
	headers := map[string]string{"Accept": "text/event-stream"}
	if p.Key != "" {
		headers["Authorization"] = "Bearer " + p.Key
	}
	resp, err := post(ctx, c, p.Endpoint+"/responses", headers, d.body(p, req), errorMessage)
	if err != nil {
		return nil, err
	}
	var final *responsesResponse
	if !streamed(resp) {
		final = &responsesResponse{}
		if err := readJSON(resp, final); err != nil {
			return nil, err
		}
	} else {
		err = sse(resp, func(_ string, data []byte) (bool, error) {
			var ev struct {
				Type     string             `json:"type"`
				Response *responsesResponse `json:"response"`
				Message  string             `json:"message"`
			}
			if err := json.Unmarshal(data, &ev); err != nil {
				return false, &ProviderError{Status: resp.StatusCode, Message: "a stream event is not Responses API JSON"}
			}
			switch ev.Type {
			case "response.completed", "response.incomplete":
				final = ev.Response
				return false, nil
			case "response.failed":
				msg := "the response failed"
				if ev.Response != nil && ev.Response.Error != nil {
					msg = ev.Response.Error.Message
				}
				return false, &ProviderError{Status: resp.StatusCode, Message: msg}
			case "error":
				return false, &ProviderError{Status: resp.StatusCode, Message: ev.Message}
			}
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		if final == nil {
			return nil, &ProviderError{Status: resp.StatusCode, Message: "the stream ended before response.completed"}
		}
	}
	r := &Reply{Usage: Usage{final.Usage.InputTokens, final.Usage.OutputTokens}}
	for _, item := range final.Output {
		switch item.Type {
		case "message":
			for _, c := range item.Content {
				if c.Type == "output_text" {
					r.Text += c.Text
				}
			}
		case "function_call":
			r.Calls = append(r.Calls, ToolCall{ID: item.CallID, Name: item.Name, Args: args(item.Arguments)})
		}
	}
	return r, nil
}
