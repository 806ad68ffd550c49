package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
)

const outboxSkill = `minimum_runx: 0.1.0
methods:
  send:
    description: Send one message through the outbox connector, once approved.
    inputs:
      to: { type: string, required: true }
      text: { type: string, required: true }
      key: { type: string, required: true }
    steps:
      - id: send
        operation: outbox/message.send
        idempotency_key: $input.key
        inputs: { to: $input.to, text: $input.text }
`

// outboxConnector is a write connector for the loopback provider: approval
// required, priced per success, an idempotency header, and a readback that
// confirms the message by identity.
const outboxConnector = `id: outbox
version: 1.0.0
base_url: BASE
operations:
  message.send:
    summary: Send one message.
    verb: write
    scopes: ["outbox:messages:write"]
    target: messages/{to}
    approval: required
    cost: { usd_micro: 2500, per: success, source: rate_card, source_url: https://outbox.example/pricing }
    request: { method: POST, path: /v1/messages, body: { to: $input.to, text: $input.text } }
    idempotency: { header: Idempotency-Key, window_seconds: 86400 }
    readbacks:
      - operation: message.get
        inputs: { id: $response.id }
        confirms: { to: $input.to, text: $input.text, id: $response.id }
    inputs:
      to: { type: string, required: true }
      text: { type: string, required: true }
    outputs:
      id: { type: string }
      status: { type: string }
  message.get:
    summary: Read one message back.
    verb: read
    cost: { usd_micro: 0, per: request, source: docs }
    request: { method: GET, path: "/v1/messages/{id}" }
    inputs:
      id: { type: string, required: true }
    outputs:
      id: { type: string }
      to: { type: string }
      text: { type: string }
`

// outboxWorkspace is one workspace (its own .runx: its own custody) whose
// outbox connector points at provider.
func outboxWorkspace(t *testing.T, provider *testserver.Provider) *workspace {
	t.Helper()
	files := skillFiles("outbox", outboxSkill)
	files["outbox/connectors/outbox/connector.yaml"] = strings.Replace(outboxConnector, "BASE", provider.URL, 1)
	return newWorkspace(t, files)
}

func sendArgs(text, key string, flags ...string) []string {
	return append([]string{"skill", "./outbox", "-i", "to=ada@example.com", "-i", "text=" + text, "-i", "key=" + key, "--json"}, flags...)
}

// A write connector against a provider that enforces its idempotency keys:
// the operation's required approval comes first and carries the quote, the
// quote is reserved under --max-spend, the write goes once and is confirmed
// by its readback; another workspace sending under the same key while the
// first is in flight gets the provider's 409 and settles no charge, then
// completes as a deduplicated replay; another body under the key gets 422.
func TestWriteConnectorAgainstAnIdempotentProvider(t *testing.T) {
	provider := testserver.StartProvider(t)
	a := outboxWorkspace(t, provider)

	// Over the money limit: the approval is asked (with the price), and
	// once given, the call is refused before anything is sent.
	paused, _ := a.run("", nil, sendArgs("hello", "k1", "--max-spend", "0.002")...)
	if str(paused, "status") != "needs_approval" || provider.Requests("POST /v1/messages") != 0 {
		t.Fatalf("a required approval comes before anything is sent: %v", paused)
	}
	if !strings.Contains(toJSON(get(paused, "requests", "0", "payload")), "2500") {
		t.Fatalf("the approval's summary must carry the quoted price: %v", get(paused, "requests", "0", "payload"))
	}
	blocked, _ := approve(t, a, paused)
	if str(blocked, "outcome") != "blocked" || str(blocked, "seal_reason") != "cost_limit_exceeded" || provider.Requests("POST /v1/messages") != 0 {
		t.Fatalf("over --max-spend: %v", blocked)
	}

	// Workspace a sends under k2 and is held at the provider, in flight.
	paused, _ = a.run("", nil, sendArgs("hello", "k2", "--max-spend", "0.01")...)
	holding := provider.Hold()
	doc := answerDoc("approvals", str(paused, "requests", "0", "address"), str(paused, "requests", "0", "request_digest"), `"approved":true,"reason":"ok"`)
	var heldOut bytes.Buffer
	held := a.cmd(doc, nil, "resume", str(paused, "run_id"), "-", "--json")
	held.Stdout = &heldOut
	if err := held.Start(); err != nil {
		t.Fatal(err)
	}
	<-holding

	// Another workspace, same intent and key: the provider says 409.
	b := outboxWorkspace(t, provider)
	conflict, _ := approve(t, b, first(b.run("", nil, sendArgs("hello", "k2", "--max-spend", "0.0025")...)))
	if str(conflict, "error", "code") != "provider_refused" || !strings.Contains(str(conflict, "error", "message"), "409") {
		t.Fatalf("a key in flight elsewhere: %v", conflict)
	}
	if cost := stepCostOf(t, b, conflict, "send"); cost["settled_usd_micro"] != float64(0) || cost["quoted_usd_micro"] != float64(2500) {
		t.Fatalf("a refused send settles no charge: %v", cost)
	}

	provider.Release()
	if err := held.Wait(); err != nil {
		t.Fatalf("the held send: %v %s", err, heldOut.String())
	}
	if !strings.Contains(heldOut.String(), `"outcome": "completed"`) {
		t.Fatalf("the held send: %s", heldOut.String())
	}
	if provider.Requests("GET /v1/messages/{id}") != 1 || len(provider.Messages()) != 1 {
		t.Fatalf("one message, confirmed by one readback: %d %v", provider.Requests("GET /v1/messages/{id}"), provider.Messages())
	}

	// a again under the same key: custody holds the act as done, so
	// nothing is sent and the packet records zero new charge.
	again, _ := approve(t, a, first(a.run("", nil, sendArgs("hello", "k2", "--max-spend", "0.0025")...)))
	if str(again, "outcome") != "completed" || provider.Requests("POST /v1/messages") != 2 {
		t.Fatalf("an act already done: %v (%d posts)", again, provider.Requests("POST /v1/messages"))
	}
	if cost := stepCostOf(t, a, again, "send"); cost["settled_usd_micro"] != float64(0) || cost["quoted_usd_micro"] != float64(2500) {
		t.Fatalf("already_done records zero new charge: %v", cost)
	}

	// b again, same key and body: its refused attempt may be tried again,
	// the provider replays the first answer, the readback confirms it, and
	// the released reservation lets it fit the same limit.
	replay, _ := approve(t, b, first(b.run("", nil, sendArgs("hello", "k2", "--max-spend", "0.0025")...)))
	if str(replay, "outcome") != "completed" || str(replay, "result", "id") != "msg_1" || len(provider.Messages()) != 1 {
		t.Fatalf("a replay under the same key: %v %v", replay, provider.Messages())
	}
	rec := stepReceipt(t, b, replay)
	if str(rec, "body", "extra", "connector", "finality") != "confirmed" {
		t.Fatalf("the replay must be confirmed by readback: %v", get(rec, "body", "extra"))
	}

	// A third workspace, another body under k2: the provider says 422.
	c := outboxWorkspace(t, provider)
	changed, _ := approve(t, c, first(c.run("", nil, sendArgs("changed", "k2")...)))
	if str(changed, "error", "code") != "provider_refused" || !strings.Contains(str(changed, "error", "message"), "422") || len(provider.Messages()) != 1 {
		t.Fatalf("another body under a used key: %v", changed)
	}
}
