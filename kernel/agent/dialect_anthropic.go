package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// anthropicDialect speaks Anthropic's Messages API (POST
// <endpoint>/messages, x-api-key, anthropic-version). It streams:
// message_start (input usage), content_block_start (a text or tool_use
// block), content_block_delta (text_delta, input_json_delta),
// content_block_stop, message_delta (output usage), message_stop; an error
// event carries the provider's message.
type anthropicDialect struct{}

// AnthropicVersion is the Messages API version runx speaks.
const AnthropicVersion = "2023-06-01"

// anthropicMaxTokens is max_tokens for a round when the turn's token budget
// leaves no lower bound: the API requires one.
const anthropicMaxTokens = 8192

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type anthropicUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

func (anthropicDialect) body(p *Provider, req *Request) map[string]any {
	msgs := []map[string]any{}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			msgs = append(msgs, map[string]any{"role": "user", "content": []anthropicBlock{{Type: "text", Text: m.Text}}})
		case RoleAssistant:
			var blocks []anthropicBlock
			if m.Text != "" {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Text})
			}
			for _, c := range m.Calls {
				blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: c.Args})
			}
			msgs = append(msgs, map[string]any{"role": "assistant", "content": blocks})
		case RoleTool:
			var blocks []anthropicBlock
			for _, r := range m.Results {
				blocks = append(blocks, anthropicBlock{Type: "tool_result", ToolUseID: r.CallID, Content: r.Content, IsError: r.IsError})
			}
			msgs = append(msgs, map[string]any{"role": "user", "content": blocks})
		}
	}
	tools := make([]map[string]any, 0, len(req.Tools))
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Schema})
	}
	maxTokens := anthropicMaxTokens
	if req.MaxTokens > 0 && req.MaxTokens < maxTokens {
		maxTokens = req.MaxTokens
	}
	body := map[string]any{"model": p.Model, "max_tokens": maxTokens, "messages": msgs, "stream": true}
	if req.System != "" {
		body["system"] = req.System
	}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	return body
}

func (d anthropicDialect) Round(ctx context.Context, c *http.Client, p *Provider, req *Request) (*Reply, error) {
	headers := map[string]string{"anthropic-version": AnthropicVersion, "Accept": "text/event-stream"}
	if p.Key != "" {
		headers["x-api-key"] = p.Key
	}
	resp, err := post(ctx, c, p.Endpoint+"/messages", headers, d.body(p, req), errorMessage)
	if err != nil {
		return nil, err
	}
	if !streamed(resp) {
		var whole struct {
			Content []anthropicBlock `json:"content"`
			Usage   anthropicUsage   `json:"usage"`
		}
		if err := readJSON(resp, &whole); err != nil {
			return nil, err
		}
		return anthropicReply(whole.Content, whole.Usage), nil
	}
	var blocks []anthropicBlock
	var partial []*strings.Builder
	var usage anthropicUsage
	err = sse(resp, func(event string, data []byte) (bool, error) {
		var ev struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				Usage anthropicUsage `json:"usage"`
			} `json:"message"`
			ContentBlock anthropicBlock `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
			Usage *anthropicUsage `json:"usage"`
			Error *struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return false, &ProviderError{Status: resp.StatusCode, Message: "a stream event is not Messages API JSON"}
		}
		switch ev.Type {
		case "message_start":
			usage = ev.Message.Usage
		case "content_block_start":
			for len(blocks) <= ev.Index {
				blocks = append(blocks, anthropicBlock{})
				partial = append(partial, &strings.Builder{})
			}
			blocks[ev.Index] = ev.ContentBlock
		case "content_block_delta":
			if ev.Index >= len(blocks) {
				return false, &ProviderError{Status: resp.StatusCode, Message: "a content_block_delta names a block that never started"}
			}
			switch ev.Delta.Type {
			case "text_delta":
				blocks[ev.Index].Text += ev.Delta.Text
			case "input_json_delta":
				partial[ev.Index].WriteString(ev.Delta.PartialJSON)
			}
		case "message_delta":
			if ev.Usage != nil {
				usage.OutputTokens = ev.Usage.OutputTokens
				if ev.Usage.InputTokens > 0 {
					usage.InputTokens = ev.Usage.InputTokens
				}
			}
		case "message_stop":
			return false, nil
		case "error":
			msg := "the provider's stream reported an error"
			if ev.Error != nil {
				msg = ev.Error.Message
			}
			return false, &ProviderError{Status: resp.StatusCode, Message: msg}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	for i := range blocks {
		if blocks[i].Type == "tool_use" && partial[i].Len() > 0 {
			blocks[i].Input = args(partial[i].String())
		}
	}
	return anthropicReply(blocks, usage), nil
}

func anthropicReply(blocks []anthropicBlock, u anthropicUsage) *Reply {
	r := &Reply{Usage: Usage(u)}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			r.Text += b.Text
		case "tool_use":
			in := b.Input
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			r.Calls = append(r.Calls, ToolCall{ID: b.ID, Name: b.Name, Args: in})
		}
	}
	return r
}
