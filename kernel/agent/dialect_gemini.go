package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// geminiDialect speaks Gemini's generateContent: POST
// <endpoint>/models/<model>:streamGenerateContent?alt=sse (x-goog-api-key),
// each event a GenerateContentResponse whose candidates' parts add text and
// functionCall parts; usageMetadata counts the tokens. Tools are
// functionDeclarations with parametersJsonSchema, answers functionResponse
// parts.
type geminiDialect struct{}

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	FunctionCall     *geminiCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiResponse `json:"functionResponse,omitempty"`
}

type geminiCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type geminiResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiChunk struct {
	Candidates []struct {
		Content geminiContent `json:"content"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount     int64 `json:"promptTokenCount"`
		CandidatesTokenCount int64 `json:"candidatesTokenCount"`
	} `json:"usageMetadata"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (geminiDialect) body(req *Request) map[string]any {
	contents := []geminiContent{}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			contents = append(contents, geminiContent{Role: "user", Parts: []geminiPart{{Text: m.Text}}})
		case RoleAssistant:
			var parts []geminiPart
			if m.Text != "" {
				parts = append(parts, geminiPart{Text: m.Text})
			}
			for _, c := range m.Calls {
				parts = append(parts, geminiPart{FunctionCall: &geminiCall{ID: c.ID, Name: c.Name, Args: c.Args}})
			}
			contents = append(contents, geminiContent{Role: "model", Parts: parts})
		case RoleTool:
			var parts []geminiPart
			for _, r := range m.Results {
				key := "output"
				if r.IsError {
					key = "error"
				}
				var v any = r.Content
				var decoded any
				if json.Unmarshal([]byte(r.Content), &decoded) == nil {
					v = decoded
				}
				parts = append(parts, geminiPart{FunctionResponse: &geminiResponse{ID: r.CallID, Name: r.Name, Response: map[string]any{key: v}}})
			}
			contents = append(contents, geminiContent{Role: "user", Parts: parts})
		}
	}
	decls := make([]map[string]any, 0, len(req.Tools))
	for _, t := range req.Tools {
		decls = append(decls, map[string]any{"name": t.Name, "description": t.Description, "parametersJsonSchema": t.Schema})
	}
	body := map[string]any{"contents": contents}
	if req.System != "" {
		body["systemInstruction"] = geminiContent{Parts: []geminiPart{{Text: req.System}}}
	}
	if len(decls) > 0 {
		body["tools"] = []map[string]any{{"functionDeclarations": decls}}
	}
	if req.MaxTokens > 0 {
		body["generationConfig"] = map[string]any{"maxOutputTokens": req.MaxTokens}
	}
	return body
}

func (d geminiDialect) Round(ctx context.Context, c *http.Client, p *Provider, req *Request) (*Reply, error) {
	headers := map[string]string{}
	if p.Key != "" {
		headers["x-goog-api-key"] = p.Key
	}
	u := p.Endpoint + "/models/" + url.PathEscape(p.Model) + ":streamGenerateContent?alt=sse"
	resp, err := post(ctx, c, u, headers, d.body(req), errorMessage)
	if err != nil {
		return nil, err
	}
	r := &Reply{}
	n := 0
	add := func(ch *geminiChunk) error {
		if ch.Error != nil {
			return &ProviderError{Status: resp.StatusCode, Message: ch.Error.Message}
		}
		if ch.UsageMetadata != nil {
			r.Usage = Usage{ch.UsageMetadata.PromptTokenCount, ch.UsageMetadata.CandidatesTokenCount}
		}
		if len(ch.Candidates) == 0 {
			return nil
		}
		for _, part := range ch.Candidates[0].Content.Parts {
			switch {
			case part.FunctionCall != nil:
				id := part.FunctionCall.ID
				if id == "" {
					// Older models give no id: the name answers it, and
					// runx needs one to pin the call.
					id = "call_" + strconv.Itoa(n)
				}
				n++
				a := part.FunctionCall.Args
				if len(a) == 0 {
					a = json.RawMessage("{}")
				}
				r.Calls = append(r.Calls, ToolCall{ID: id, Name: part.FunctionCall.Name, Args: a})
			default:
				r.Text += part.Text
			}
		}
		return nil
	}
	if !streamed(resp) {
		// A server answering the whole response at once: one chunk, or an
		// array of them.
		var raw json.RawMessage
		if err := readJSON(resp, &raw); err != nil {
			return nil, err
		}
		var chunks []geminiChunk
		if json.Unmarshal(raw, &chunks) != nil {
			var one geminiChunk
			if err := json.Unmarshal(raw, &one); err != nil {
				return nil, &ProviderError{Status: resp.StatusCode, Message: "the provider's answer is not generateContent JSON"}
			}
			chunks = []geminiChunk{one}
		}
		for i := range chunks {
			if err := add(&chunks[i]); err != nil {
				return nil, err
			}
		}
		return r, nil
	}
	err = sse(resp, func(_ string, data []byte) (bool, error) {
		var ch geminiChunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return false, &ProviderError{Status: resp.StatusCode, Message: "a stream event is not generateContent JSON"}
		}
		return true, add(&ch)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}
