package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run"
)

// cannedTransport answers every round at once with a recorded Chat
// Completions stream: the provider's time is out of the measure, and the
// driver's own work (rendering the request, reading the stream, scrubbing,
// keeping the conversation, the budget) is all that is left.
type cannedTransport struct{ body []byte }

func (c cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(c.body)), Request: r}, nil
}

// BenchmarkAgentRound measures the agent loop's overhead per round,
// excluding the provider's time: each op is one round of an eight-round
// turn in the chat_completions dialect, a tool list and manual of a real
// skill's size. The target is under 2 ms a round.
func BenchmarkAgentRound(b *testing.B) {
	var stream strings.Builder
	for _, chunk := range []string{
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Still reading the file; "}}]}`,
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"one moment."}}]}`,
		`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":12}}`,
		`[DONE]`,
	} {
		stream.WriteString("data: " + chunk + "\n\n")
	}
	const rounds = 8
	// The round never reaches the kernel; NewDriver reads its taint set.
	d, err := NewDriver(&run.Kernel{}, &Provider{Name: "local", Model: "m", Dialect: DialectChat, Endpoint: "http://stand-in/v1", Key: "sk-bench-key"},
		contract.AgentBudget{RoundsPerTurn: rounds, RoundsPerRun: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	d.HTTP = &http.Client{Transport: cannedTransport{body: []byte(stream.String())}, Timeout: time.Minute}
	schema := json.RawMessage(`{"type":"object","required":["path"],"additionalProperties":false,"properties":{"path":{"type":"string","minLength":1},"max_bytes":{"type":"integer","minimum":1}}}`)
	prompt := &turnPrompt{system: systemPrompt + "\n\n" + strings.Repeat("A manual line of the skill, as long as real manuals are.\n", 60),
		first: "The turn:\n" + strings.Repeat(`{"inputs":{"path":"notes.txt"}}`, 20),
		tools: []Tool{{Name: "fs_read", Description: "Read one file", Schema: schema}, {Name: CompleteTool, Description: "End the turn", Schema: completeSchema(nil)}},
		names: map[string]string{"fs_read": "fs.read"}}
	turn := &run.OpenTurn{Address: "review"}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		st := &turnState{prompt: prompt, msgs: []Message{{Role: RoleUser, Text: prompt.first}}}
		if a := d.converse(context.Background(), turn, st); a == nil || st.rounds != rounds {
			b.Fatalf("the turn did not run its %d rounds: %d", rounds, st.rounds)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N*rounds), "µs/round")
}
