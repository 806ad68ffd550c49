package run

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// priced is a connector whose operations declare what its provider
// charges, served in process over real gRPC: the engine learns every price
// from these descriptions alone.
type priced struct {
	mu    sync.Mutex
	calls map[string]int
}

func usd(n int64) *int64 { return &n }

func (p *priced) Info() sdk.Info {
	op := func(id, effect string, cost *sdk.Cost) sdk.Definition {
		return sdk.Definition{ID: id, Summary: id, Effect: effect, Approval: sdk.ApprovalNone, Idempotent: true, Cost: cost}
	}
	return sdk.Info{Name: "priced", Version: "0.0.1", Capabilities: []sdk.Definition{
		op("priced/send", sdk.EffectWrite, &sdk.Cost{USDMicro: usd(2500), Per: "success", Source: "rate_card"}),
		op("priced/page", sdk.EffectRead, &sdk.Cost{USDMicro: usd(100), Per: "request", Source: "docs"}),
		op("priced/check", sdk.EffectRead, &sdk.Cost{USDMicro: usd(2500), Per: "success", Source: "docs"}),
		op("priced/metered", sdk.EffectRead, &sdk.Cost{Per: "request", Source: "docs"}),
		op("priced/free", sdk.EffectRead, &sdk.Cost{USDMicro: usd(0), Per: "request", Source: "docs"}),
		op("priced/undeclared", sdk.EffectRead, nil),
		op("priced.local", sdk.EffectNone, nil),
	}}
}

func (p *priced) count(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[id]++
	return p.calls[id]
}

func (p *priced) n(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[id]
}

// Invoke answers as its input's outcome says: ok, reject (the provider
// answered and did not accept) or ambiguous (it cannot tell).
func (p *priced) Invoke(_ context.Context, call *sdk.Call) *sdk.Result {
	n := p.count(call.Capability)
	var in struct {
		Outcome string `json:"outcome"`
	}
	_ = json.Unmarshal(call.Input, &in)
	if call.Capability == "priced/check" && n == 1 {
		in.Outcome = "reject"
	}
	switch in.Outcome {
	case "reject":
		return sdk.Failed("provider_refused", "the provider said no")
	case "ambiguous":
		return sdk.Failed(errcode.AmbiguousCommit, "the answer was lost after the request left")
	}
	return sdk.OK([]byte(fmt.Sprintf(`{"n":%d}`, n)), nil)
}

func pricedKernel(t *testing.T) (*Kernel, *priced) {
	t.Helper()
	k, _ := stubKernel(t)
	p := &priced{calls: map[string]int{}}
	k.engine.Host = newStubHost(t, p)
	return k, p
}

// held is what the run's spend stream holds.
func held(t *testing.T, k *Kernel, runID string) int64 {
	t.Helper()
	events, err := k.journal.Events(context.Background(), runID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var spend []journal.Event
	for _, ev := range events {
		if ev.Stream == connector.SpendStream {
			spend = append(spend, ev)
		}
	}
	s, err := connector.HeldBy(spend)
	if err != nil {
		t.Fatal(err)
	}
	return s.Held
}

// stepCost reads the cost fields of the receipt of a run's step.
func stepCost(t *testing.T, k *Kernel, env *contract.SkillRun, step string) map[string]any {
	t.Helper()
	for _, s := range env.Trace.Steps {
		if s.StepID != step {
			continue
		}
		r, _, err := k.store.Get(s.ReceiptID)
		if err != nil {
			t.Fatal(err)
		}
		cost, _ := r.Body.Extra["cost"].(map[string]any)
		return cost
	}
	t.Fatalf("no step %s in %+v", step, env.Trace)
	return nil
}

func limitDoc(n int64) string { return fmt.Sprintf(`{"max_spend_micro_usd":%d}`, n) }

const oneSend = `methods:
  m:
    inputs: { outcome: { type: string, default: ok } }
    steps:
      - { id: send, operation: priced/send, inputs: { outcome: $input.outcome } }
`

// A priced call is reserved before it is sent; its receipt carries the
// quote, the settlement and the payer.
func TestSpendReservesAndSettles(t *testing.T) {
	k, p := pricedKernel(t)
	dir := writeSkill(t, k, "s", oneSend, nil)
	env := runSkill(t, k, dir, "m", `{}`, limitDoc(3000))
	if env.Outcome != seal.OutcomeCompleted {
		t.Fatalf("want completed, got %s %v", env.Outcome, env.Error)
	}
	cost := stepCost(t, k, env, "send")
	if cost["quoted_usd_micro"] != float64(2500) || cost["settled_usd_micro"] != float64(2500) || cost["payer"] != LocalActor {
		t.Fatalf("cost fields %v", cost)
	}
	if h := held(t, k, env.RunID); h != 2500 || p.n("priced/send") != 1 {
		t.Fatalf("held %d after one charged send (%d sent)", h, p.n("priced/send"))
	}
	// With no money limit no reservation is made, and the packet still
	// says what the call cost.
	env = runSkill(t, k, dir, "m", `{}`, "")
	if cost := stepCost(t, k, env, "send"); cost["settled_usd_micro"] != float64(2500) || held(t, k, env.RunID) != 0 {
		t.Fatalf("unlimited run: cost %v, held %d", cost, held(t, k, env.RunID))
	}
}

// A quote over what the limit leaves is refused before anything is sent,
// and the run seals blocked with cost_limit_exceeded.
func TestSpendOverLimitSealsBlocked(t *testing.T) {
	k, p := pricedKernel(t)
	dir := writeSkill(t, k, "s", oneSend, nil)
	env := runSkill(t, k, dir, "m", `{}`, limitDoc(2499))
	if env.Outcome != seal.OutcomeBlocked || env.SealReason != seal.ReasonCostLimitExceeded || errCode(env) != "cost_limit_exceeded" {
		t.Fatalf("want blocked cost_limit_exceeded, got %s %s %v", env.Outcome, env.SealReason, env.Error)
	}
	if p.n("priced/send") != 0 || held(t, k, env.RunID) != 0 {
		t.Fatalf("a refused call was sent (%d) or held (%d)", p.n("priced/send"), held(t, k, env.RunID))
	}
	// A zero limit refuses any priced call, and admits a free one.
	env = runSkill(t, k, dir, "m", `{}`, limitDoc(0))
	if env.Outcome != seal.OutcomeBlocked {
		t.Fatalf("a zero limit let a priced call through: %s", env.Outcome)
	}
	free := writeSkill(t, k, "f", "methods:\n  m:\n    steps:\n      - { id: a, operation: priced/free }\n", nil)
	if env = runSkill(t, k, free, "m", `{}`, limitDoc(0)); env.Outcome != seal.OutcomeCompleted {
		t.Fatalf("a free call under a zero limit: %s %v", env.Outcome, env.Error)
	}
}

// Under a money limit an unknown price is refused: a declaration without
// usd_micro, or an operation with no declaration at all. A local tool
// without one is no provider call. Without a limit, declared metering asks
// once for approval of the exact call, then runs, and its packet says
// nothing it does not know.
func TestSpendUnknownQuoteRefused(t *testing.T) {
	k, p := pricedKernel(t)
	for _, tc := range []struct{ step, code string }{
		{"operation: priced/metered", "cost_quote_unknown"},
		{"operation: priced/undeclared", "cost_quote_unknown"},
		{"tool: priced.local", ""},
	} {
		dir := writeSkill(t, k, "u", "methods:\n  m:\n    steps:\n      - { id: a, "+tc.step+" }\n", nil)
		env := runSkill(t, k, dir, "m", `{}`, limitDoc(1_000_000))
		if errCode(env) != tc.code {
			t.Fatalf("%s: code %q, want %q (%s)", tc.step, errCode(env), tc.code, env.Outcome)
		}
		if tc.code != "" && env.Outcome != seal.OutcomeRefused {
			t.Fatalf("%s: an unknown price refused seals refused, got %s", tc.step, env.Outcome)
		}
	}
	if p.n("priced/metered")+p.n("priced/undeclared") != 0 {
		t.Fatal("an unknown price was sent under a limit")
	}
	dir := writeSkill(t, k, "m", "methods:\n  m:\n    steps:\n      - { id: a, operation: priced/metered }\n", nil)
	env := runSkill(t, k, dir, "m", `{}`, "")
	if env.Status != "needs_approval" || p.n("priced/metered") != 0 {
		t.Fatalf("metered without a limit asks once for the exact call first: %+v", env)
	}
	env, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, "")})
	if err != nil {
		t.Fatal(err)
	}
	cost := stepCost(t, k, env, "a")
	if env.Outcome != seal.OutcomeCompleted || len(cost) != 1 || cost["payer"] != LocalActor {
		t.Fatalf("metered without a limit: %s, cost %v (no fictional zeroes)", env.Outcome, cost)
	}
}

// A call that proves nothing billable gives its reservation back: per
// success, a rejected attempt releases, so the retry fits the same limit.
// Per request, an answered call is billable even when it failed. An
// ambiguous answer keeps its reservation and settles nothing.
func TestSpendReleasedWhenNothingBillable(t *testing.T) {
	k, p := pricedKernel(t)
	dir := writeSkill(t, k, "r", "methods:\n  m:\n    steps:\n      - { id: a, operation: priced/check, retry: { max_attempts: 2 } }\n", nil)
	env := runSkill(t, k, dir, "m", `{}`, limitDoc(2500))
	if env.Outcome != seal.OutcomeCompleted || p.n("priced/check") != 2 {
		t.Fatalf("the retry must fit the limit its failed attempt released: %s %v (%d calls)", env.Outcome, env.Error, p.n("priced/check"))
	}
	if h := held(t, k, env.RunID); h != 2500 {
		t.Fatalf("held %d, want the one successful charge", h)
	}

	dir = writeSkill(t, k, "s", oneSend, nil)
	env = runSkill(t, k, dir, "m", `{"outcome":"reject"}`, limitDoc(5000))
	if cost := stepCost(t, k, env, "send"); cost["settled_usd_micro"] != float64(0) || held(t, k, env.RunID) != 0 {
		t.Fatalf("a rejected per-success call: cost %v, held %d", cost, held(t, k, env.RunID))
	}
	env = runSkill(t, k, dir, "m", `{"outcome":"ambiguous"}`, limitDoc(5000))
	cost := stepCost(t, k, env, "send")
	if _, settled := cost["settled_usd_micro"]; settled || cost["quoted_usd_micro"] != float64(2500) || held(t, k, env.RunID) != 2500 {
		t.Fatalf("an ambiguous per-success call: cost %v, held %d", cost, held(t, k, env.RunID))
	}

	page := writeSkill(t, k, "p", "methods:\n  m:\n    steps:\n      - { id: a, operation: priced/page, inputs: { outcome: reject } }\n", nil)
	env = runSkill(t, k, page, "m", `{}`, limitDoc(5000))
	if cost := stepCost(t, k, env, "a"); cost["settled_usd_micro"] != float64(100) || held(t, k, env.RunID) != 100 {
		t.Fatalf("an answered per-request call is billable: cost %v, held %d", cost, held(t, k, env.RunID))
	}
}

// Fan-out items reserve at once: exactly as many as the limit holds are
// sent, never one more, and the step seals the run blocked.
func TestSpendFanOutReservationsNeverOvershoot(t *testing.T) {
	k, p := pricedKernel(t)
	dir := writeSkill(t, k, "f", `methods:
  m:
    inputs: { xs: { type: array } }
    steps:
      - { id: a, operation: priced/send, for_each: $input.xs, concurrency: 8, inputs: { n: $item } }
`, nil)
	env := runSkill(t, k, dir, "m", `{"xs":[1,2,3,4,5,6,7,8]}`, limitDoc(4*2500+2499))
	if p.n("priced/send") != 4 {
		t.Fatalf("%d of 8 items were sent under a limit that holds 4", p.n("priced/send"))
	}
	if env.Outcome != seal.OutcomeBlocked || env.SealReason != seal.ReasonCostLimitExceeded {
		t.Fatalf("want blocked, got %s %s %v", env.Outcome, env.SealReason, env.Error)
	}
	if h := held(t, k, env.RunID); h != 4*2500 {
		t.Fatalf("held %d", h)
	}
}

// Child runs spend from their root's limit; --max-spend on a resume narrows
// what the rest of the run may spend, and can never widen it.
func TestSpendChildRunsAndResumeNarrowing(t *testing.T) {
	k, p := pricedKernel(t)
	writeSkill(t, k, "child", oneSend, nil)
	dir := writeSkill(t, k, "parent", `methods:
  m:
    steps:
      - { id: first, operation: priced/send }
      - { id: kid, skill: ../child }
`, nil)
	env := runSkill(t, k, dir, "m", `{}`, limitDoc(4999))
	if env.Outcome != seal.OutcomeBlocked || errCode(env) != "cost_limit_exceeded" || p.n("priced/send") != 1 {
		t.Fatalf("the child must spend from its root's limit: %s %v (%d sent)", env.Outcome, env.Error, p.n("priced/send"))
	}

	gated := writeSkill(t, k, "gated", `methods:
  m:
    steps:
      - { id: ok, ask: { reason: Go on? } }
      - { id: send, operation: priced/send }
`, nil)
	for _, tc := range []struct {
		name        string
		start, flag int64
	}{
		{"narrowed below the quote", 1_000_000, 2000},
		{"a wider flag does not widen", 2499, 1_000_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := p.n("priced/send")
			env := runSkill(t, k, gated, "m", `{}`, limitDoc(tc.start))
			if env.Status != contract.StatusNeedsApproval {
				t.Fatalf("want a paused run, got %s", env.Status)
			}
			out, err := k.engine.Resume(context.Background(), ResumeRequest{RunID: env.RunID, Document: answer(t, env, true, ""), MaxSpend: authority.LimitOf(tc.flag)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Outcome != seal.OutcomeBlocked || out.SealReason != seal.ReasonCostLimitExceeded || p.n("priced/send") != before {
				t.Fatalf("got %s %v, %d sent", out.Outcome, out.Error, p.n("priced/send")-before)
			}
		})
	}
}
