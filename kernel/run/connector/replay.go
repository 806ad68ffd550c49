package connector

import (
	"encoding/json"
	"sync"

	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Replay is a runx test's providers: the only answers a connector request
// gets. The kernel hands the connector.request capability, in each call's
// binding, the exchanges due now (for each distinct request, the first
// declared one not yet used, or the last of them once all are: the last
// answers every later repeat), and counts which one answered; a tool call
// gets the loopback MCP server standing in for its connector's. It never
// reaches any process's environment.
type Replay struct {
	mu        sync.Mutex
	exchanges []sdk.HTTPExchange
	counts    []int
	// mcp is each stood-in connector's MCP endpoint, by connector id.
	mcp map[string]string
}

// NewReplay holds a test's declared exchanges in declaration order, and
// the MCP server standing in for each connector it names.
func NewReplay(exchanges []sdk.HTTPExchange, mcp map[string]string) *Replay {
	for i := range exchanges {
		exchanges[i].Index = i
	}
	return &Replay{exchanges: exchanges, counts: make([]int, len(exchanges)), mcp: mcp}
}

// Bind marks b as a test's call and gives it what answers it: the
// exchanges due now, and for a tool call its connector's stand-in. A nil
// Replay is a live run and binds nothing.
func (r *Replay) Bind(b *sdk.ConnectorBinding) {
	if r == nil {
		return
	}
	b.Replay, b.Exchanges = true, r.due()
	if b.Request.Tool != "" {
		b.MCPEndpoint = r.mcp[b.Connector]
	}
}

func exchangeKey(x *sdk.HTTPExchange) string {
	return x.Request.Method + " " + x.Request.URL + " " + string(x.Request.Body) + boolText(x.Request.Body == nil)
}

func boolText(b bool) string {
	if b {
		return "|none"
	}
	return "|json"
}

// due lists the exchanges that answer the next request of each kind.
func (r *Replay) due() []sdk.HTTPExchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	groups := map[string][]int{}
	var order []string
	for i := range r.exchanges {
		k := exchangeKey(&r.exchanges[i])
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	out := make([]sdk.HTTPExchange, 0, len(order))
	for _, k := range order {
		idx := groups[k]
		pick := idx[len(idx)-1]
		for _, i := range idx {
			if r.counts[i] == 0 {
				pick = i
				break
			}
		}
		out = append(out, r.exchanges[pick])
	}
	return out
}

// Observe counts the exchange a call's evidence names as its answer.
func (r *Replay) Observe(evidence json.RawMessage) {
	if r == nil || len(evidence) == 0 {
		return
	}
	var ev struct {
		Exchange *int `json:"exchange"`
	}
	if json.Unmarshal(evidence, &ev) != nil || ev.Exchange == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := *ev.Exchange; i >= 0 && i < len(r.counts) {
		r.counts[i]++
	}
}

// Counts is how many requests each declared exchange answered, in
// declaration order.
func (r *Replay) Counts() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.counts...)
}
