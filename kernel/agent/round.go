package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// Message is one entry of a turn's conversation, in no dialect's shape:
// each dialect renders it in its own wire format.
type Message struct {
	Role    string // "user", "assistant" or "tool"
	Text    string
	Calls   []ToolCall   // an assistant's tool calls
	Results []ToolResult // the answers to them, a "tool" message
}

// Roles of a conversation's messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ToolCall is one call a model asks for.
type ToolCall struct {
	ID   string
	Name string
	Args json.RawMessage
}

// ToolResult answers one tool call.
type ToolResult struct {
	CallID  string
	Name    string
	Content string
	IsError bool
}

// Tool is one tool offered to the model.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Request is one round: everything the provider is sent.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int
}

// Reply is what one round answered.
type Reply struct {
	Text  string
	Calls []ToolCall
	Usage Usage
}

// Usage is the tokens a round (or a turn, or a run) took.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Add sums two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens}
}

// Total is every token counted.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Dialect speaks one provider wire format.
type Dialect interface {
	// Round sends one request and reads the provider's answer, streamed
	// where the provider streams.
	Round(ctx context.Context, c *http.Client, p *Provider, req *Request) (*Reply, error)
}

// DialectFor is the dialect a provider speaks.
func DialectFor(name string) (Dialect, error) {
	switch name {
	case DialectChat:
		return chatDialect{}, nil
	case DialectAnthropic:
		return anthropicDialect{}, nil
	case DialectResponses:
		return responsesDialect{}, nil
	case DialectGemini:
		return geminiDialect{}, nil
	}
	return nil, contract.Errorf(errcode.AgentDialectUnsupported, "runx speaks no dialect %q", name)
}

// ProviderError is a round the provider refused or could not answer: its
// HTTP status (0 when no answer arrived) and its own message, never its
// raw body.
type ProviderError struct {
	Status  int
	Message string
}

func (e *ProviderError) Error() string {
	if e.Status == 0 {
		return "the provider could not be reached: " + e.Message
	}
	return fmt.Sprintf("the provider answered %d: %s", e.Status, e.Message)
}

// RequestTimeout is the managed-agent request timeout: the longest one
// round may take, from sending the request to the end of its stream.
const RequestTimeout = 5 * time.Minute

// maxReplyBytes bounds what one round may read from a provider.
const maxReplyBytes = 32 << 20

// post sends one JSON request and returns the response when it is a 2xx;
// any other status becomes a ProviderError with the message the provider's
// error object states (messageOf reads it from the dialect's shape).
func post(ctx context.Context, c *http.Client, url string, headers map[string]string, body any, messageOf func([]byte) string) (*http.Response, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return nil, &ProviderError{Message: "the endpoint is not a usable URL"}
	}
	hr.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		hr.Header.Set(k, v)
	}
	resp, err := c.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &ProviderError{Message: transportMessage(err)}
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		msg := messageOf(b)
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		return nil, &ProviderError{Status: resp.StatusCode, Message: msg}
	}
	return resp, nil
}

// transportMessage says why no answer arrived without quoting the request.
func transportMessage(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// streamed reports whether a response is an event stream; a server that
// ignores stream and answers one JSON document is read as one.
func streamed(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}

// readJSON decodes a whole (non-streamed) response.
func readJSON(resp *http.Response, v any) error {
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxReplyBytes)).Decode(v); err != nil {
		return &ProviderError{Status: resp.StatusCode, Message: "the provider's answer is not the JSON its dialect defines"}
	}
	return nil
}

// sse reads a server-sent event stream, calling fn with each event's name
// and data; fn returning false ends the read.
func sse(resp *http.Response, fn func(event string, data []byte) (bool, error)) error {
	defer resp.Body.Close()
	sc := bufio.NewScanner(io.LimitReader(resp.Body, maxReplyBytes))
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var event string
	var data bytes.Buffer
	flush := func() (bool, error) {
		if data.Len() == 0 {
			event = ""
			return true, nil
		}
		more, err := fn(event, bytes.TrimSuffix(data.Bytes(), []byte("\n")))
		event = ""
		data.Reset()
		return more, err
	}
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if more, err := flush(); err != nil || !more {
				return err
			}
		case line[0] == ':':
		case bytes.HasPrefix(line, []byte("event:")):
			event = strings.TrimSpace(string(line[6:]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := line[5:]
			if len(d) > 0 && d[0] == ' ' {
				d = d[1:]
			}
			data.Write(d)
			data.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return &ProviderError{Status: resp.StatusCode, Message: "the provider's stream broke off: " + transportMessage(err)}
	}
	_, err := flush()
	return err
}

// args is a tool call's arguments as JSON, {} when it gave none.
func args(raw string) json.RawMessage {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(raw)
}

// errorMessage reads {"error": {"message": ...}} (OpenAI, Gemini and
// Anthropic all state their message there).
func errorMessage(b []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil {
		return e.Error.Message
	}
	return ""
}
