package run

import (
	"encoding/json"
	"sync"

	sdk "github.com/runxhq/runx/sdk/plugin"
)

// HTTPReplay is a runx test's providers.http: the only answers a connector
// request gets. The kernel hands the connector.request capability, in each
// call's binding, the exchanges due now (for each distinct request, the
// first declared one not yet used, or the last of them once all are: the
// last answers every later repeat), and counts which one answered. It
// never reaches any process's environment.
type HTTPReplay struct {
	mu        sync.Mutex
	exchanges []sdk.HTTPExchange
	counts    []int
}

// NewHTTPReplay holds a test's declared exchanges in declaration order.
func NewHTTPReplay(exchanges []sdk.HTTPExchange) *HTTPReplay {
	for i := range exchanges {
		exchanges[i].Index = i
	}
	return &HTTPReplay{exchanges: exchanges, counts: make([]int, len(exchanges))}
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
func (r *HTTPReplay) due() []sdk.HTTPExchange {
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

// observe counts the exchange a call's evidence names as its answer.
func (r *HTTPReplay) observe(evidence json.RawMessage) {
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
func (r *HTTPReplay) Counts() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.counts...)
}
