package main

import (
	"strings"
	"testing"
)

// tipOperation is a payment operation for the forge: it moves the amount
// its inputs declare, in their currency, beside a 1500 micro-USD call fee.
const tipOperation = `  tip.send:
    summary: Tip a board with a post.
    verb: write
    target: boards/{board}
    approval: required
    cost: { usd_micro: 1500, per: request, source: docs }
    payment: { amount: $input.cents, currency: $input.currency }
    request:
      method: POST
      path: /boards/{board}/posts
      body: { title: $input.title, cents: $input.cents, currency: $input.currency }
    idempotency: { header: Idempotency-Key, window_seconds: 86400 }
    readbacks:
      - operation: post.find
        inputs: { board: $input.board, key: $key }
        confirms: { title: $input.title, key: $key }
    inputs:
      board: { type: string, required: true }
      title: { type: string, required: true }
      cents: { type: integer, required: true }
      currency: { type: string, required: true }
    outputs:
      id: { type: string }
      title: { type: string }
`

const tipSkill = `minimum_runx: 0.1.0
methods:
  tip:
    description: Tip a board.
    inputs:
      board: { type: string, required: true }
      title: { type: string, required: true }
      cents: { type: integer, required: true }
      currency: { type: string, required: true }
      key: { type: string, required: true }
    steps:
      - id: tip
        operation: forge/tip.send
        idempotency_key: $input.key
        inputs: { board: $input.board, title: $input.title, cents: $input.cents, currency: $input.currency }
`

// The money a payment call moves is derived from the operation's declared
// inputs: it is in the runtime-built operator summary and the intent the
// approval binds, reserved with the call's quote under a money limit (USD
// as cents, USDC as micro-USD) before anything is sent, refused under a
// limit in any other currency, and recorded on the receipt as moved only
// once the provider accepted it.
func TestConnectorPaymentUnderAMoneyLimit(t *testing.T) {
	f := newForge(t)
	files := skillFiles("forge", tipSkill)
	files["forge/connectors/forge/connector.yaml"] = forgeConnector(f.srv.URL, "none", "0") + tipOperation
	w := newWorkspace(t, files)
	w.env = append(w.env, "FORGE_TOKEN="+f.token)
	tip := func(cents, currency, key string, flags ...string) (map[string]any, int) {
		return w.run("", nil, append([]string{"skill", "./forge#tip", "-i", "board=general", "-i", "title=thanks-" + key, "-i", "cents=" + cents, "-i", "currency=" + currency, "-i", "key=" + key, "--json"}, flags...)...)
	}
	writes := func() int { n, _ := f.writeCount(); return n }

	// The summary shows the amount; another amount is another intent.
	paused, _ := tip("50", "USD", "a", "--max-spend", "0.5")
	sum := get(paused, "requests", "0", "payload", "operator_summary")
	if str(paused, "status") != "needs_approval" || get(sum, "payment", "amount") != float64(50) || str(sum, "payment", "currency") != "USD" || get(sum, "payment", "usd_micro") != float64(500000) || !strings.Contains(str(sum, "text"), "moving 50 USD") {
		t.Fatalf("the operator summary must show the payment: %v", sum)
	}
	other, _ := tip("60", "USD", "a")
	if str(other, "requests", "0", "payload", "gate") == str(paused, "requests", "0", "payload", "gate") {
		t.Fatal("another amount must be another intent")
	}
	// 50 cents (500000 micro-USD) and the 1500 fee exceed a 0.50 limit:
	// blocked after the approval, with nothing sent.
	blocked, code := approve(t, w, paused)
	if code != 1 || str(blocked, "outcome") != "blocked" || str(blocked, "error", "code") != "cost_limit_exceeded" || writes() != 0 {
		t.Fatalf("a payment over the limit: %d %v (%d writes)", code, blocked, writes())
	}

	// Exactly at the limit: sent once, the amount recorded as moved.
	done, code := approve(t, w, first(tip("50", "USD", "b", "--max-spend", "0.5015")))
	if code != 0 || str(done, "outcome") != "completed" || writes() != 1 {
		t.Fatalf("a payment within the limit: %d %v", code, done)
	}
	rec := stepReceipt(t, w, done)
	cost := get(rec, "body", "extra", "cost")
	if get(cost, "quoted_usd_micro") != float64(1500) || get(cost, "settled_usd_micro") != float64(1500) || get(cost, "payment", "moved_usd_micro") != float64(500000) || get(cost, "payment", "amount") != float64(50) {
		t.Fatalf("the receipt's cost: %v", cost)
	}
	if get(rec, "body", "extra", "connector", "payment", "usd_micro") != float64(500000) {
		t.Fatalf("the receipt's connector record: %v", get(rec, "body", "extra", "connector"))
	}

	// USDC counts as micro-USD.
	usdc, code := approve(t, w, first(tip("250000", "USDC", "c", "--max-spend", "0.2515")))
	if code != 0 || str(usdc, "outcome") != "completed" || get(stepReceipt(t, w, usdc), "body", "extra", "cost", "payment", "moved_usd_micro") != float64(250000) {
		t.Fatalf("a USDC payment at the limit: %d %v", code, usdc)
	}

	// Another currency cannot be counted: refused under a limit before
	// anyone is asked, and nothing is sent; without a limit it goes.
	eur, code := tip("50", "EUR", "d", "--max-spend", "10")
	if code == 0 || str(eur, "status") == "needs_approval" || str(eur, "trace", "steps", "0", "error", "code") != "payment_currency_uncountable" || writes() != 2 {
		t.Fatalf("EUR under a limit: %d %v", code, eur)
	}
	free, code := approve(t, w, first(tip("50", "EUR", "d")))
	if code != 0 || str(free, "outcome") != "completed" || writes() != 3 {
		t.Fatalf("EUR without a limit: %d %v", code, free)
	}
	if p := get(stepReceipt(t, w, free), "body", "extra", "cost", "payment"); str(p, "currency") != "EUR" || get(p, "usd_micro") != nil || get(p, "moved_usd_micro") != nil {
		t.Fatalf("an uncounted payment records its amount and currency only: %v", p)
	}

	// The same key with another amount is another body: refused before
	// sending, and it moved nothing.
	conflict, _ := approve(t, w, first(tip("70", "USD", "b", "--max-spend", "1")))
	if str(conflict, "trace", "steps", "0", "error", "code") != "idempotency_key_conflict" || writes() != 3 {
		t.Fatalf("another amount under a used key: %v", conflict)
	}
	if p := get(stepReceipt(t, w, conflict), "body", "extra", "cost", "payment"); get(p, "moved_usd_micro") != float64(0) {
		t.Fatalf("a refused payment moved nothing: %v", p)
	}
}
