package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Spend events, recorded on the root run of a tree under a money limit: a
// reservation before a priced call is sent, and a release once the call
// proved nothing billable. What a tree holds is their difference, so a
// resume in another process, or after a crash between a request leaving
// and its answer being recorded, holds exactly what it held: a call that
// may have been charged keeps its reservation.
const (
	EventSpendReserved = "spend.reserved"
	EventSpendReleased = "spend.released"
	SpendStream        = "spend"
)

// SpendEvent is one reservation or release on a spend stream.
type SpendEvent struct {
	Address    string `json:"address"`
	Capability string `json:"capability"`
	MicroUSD   int64  `json:"micro_usd"`
}

// HeldBy is what a spend stream holds: its reservations less its releases.
func HeldBy(events []journal.Event) (authority.Spend, error) {
	var held int64
	for _, ev := range events {
		var se SpendEvent
		if err := json.Unmarshal(ev.Data, &se); err != nil {
			return authority.Spend{}, contract.Errorf(errcode.JournalRecordInvalid, "the run's spend record does not decode: %v", err)
		}
		switch ev.Type {
		case EventSpendReserved:
			held += se.MicroUSD
		case EventSpendReleased:
			held -= se.MicroUSD
		}
	}
	return authority.Spend{Held: held}, nil
}

// QuoteOf reads a capability's declared price.
func QuoteOf(def *sdk.Definition) authority.Quote {
	if def == nil || def.Cost == nil {
		return authority.Quote{}
	}
	q := authority.Quote{Declared: true, Per: def.Cost.Per}
	if def.Cost.USDMicro != nil {
		q.Known, q.MicroUSD = true, *def.Cost.USDMicro
	}
	return q
}

// Money is a run's side of its tree's money limit: what it asks of the run,
// the journal its reservations are recorded in, and the tree whose root's
// spend stream holds them (nil where nothing runs, as in inspection).
type Money struct {
	Run     Run
	Journal *journal.Journal
	Spend   *runstate.SpendTree
}

// AdmitQuote refuses, before any gate asks a person anything, a call whose
// price cannot be counted against the run's money limit.
func (m Money) AdmitQuote(ctx context.Context, step *pkg.Step) *contract.ErrorBody {
	limits := m.Run.Limits(step)
	if _, ok := limits.MaxSpendMicroUSD.Value(); !ok {
		return nil
	}
	provider := step.Kind == pkg.KindOperation
	if err := limits.AdmitQuote(QuoteOf(m.Run.Definition(ctx, step)), provider); err != nil {
		body := contract.BodyOf(err)
		body.Message = "step " + step.ID + " calls " + m.Run.CallName(step) + ": " + body.Message + "; nothing was sent"
		return body
	}
	return nil
}

// Charge is one priced call's reservation: its quote and, for a payment,
// the amount it moves.
type Charge struct {
	quote    authority.Quote
	payment  *Payment
	reserved int64
	address  string
	cap      string
}

// Reserve takes a priced call's quote from what the money limit leaves,
// durably, before anything is sent. A call over the limit is refused as
// cost_limit_exceeded and nothing is reserved. A call with no cost
// declaration has no charge.
func (m Money) Reserve(ctx context.Context, step *pkg.Step, local string, def *sdk.Definition, capability string) (*Charge, *contract.ErrorBody) {
	if def == nil || def.Cost == nil || quoteCovers(ctx) {
		return nil, nil
	}
	ch := &Charge{quote: QuoteOf(def), payment: paymentIn(ctx), address: m.Run.Address(local), cap: capability}
	limits := m.Run.Limits(step)
	if _, ok := limits.MaxSpendMicroUSD.Value(); !ok || m.Spend == nil || !ch.quote.Known {
		return ch, nil
	}
	// Every amount a call moves in USD or USDC is reserved with its quote;
	// AdmitPayment refused one a limit cannot count.
	amount, moved := ch.quote.MicroUSD, ""
	if p := ch.payment; p != nil && p.Countable {
		if p.MicroUSD > math.MaxInt64-amount {
			amount = math.MaxInt64
		} else {
			amount += p.MicroUSD
		}
		moved = fmt.Sprintf(" and moving %d %s (%d micro-USD)", p.Amount, p.Currency, p.MicroUSD)
	}
	if amount == 0 {
		return ch, nil
	}
	ev := SpendEvent{Address: ch.address, Capability: ch.cap, MicroUSD: amount}
	err := m.Journal.AppendEventChecked(context.WithoutCancel(ctx), m.Spend.RootID, SpendStream, EventSpendReserved, ev, func(prior []journal.Event) error {
		held, err := HeldBy(prior)
		if err != nil {
			return err
		}
		_, err = held.Reserve(limits, amount)
		return err
	})
	var refusal *authority.Error
	switch {
	case errors.As(err, &refusal):
		body := contract.BodyOf(err)
		body.Message = fmt.Sprintf("step %s calls %s, quoted at %d micro-USD per %s%s: %s; nothing was sent", step.ID, capability, ch.quote.MicroUSD, ch.quote.Per, moved, body.Message)
		return nil, body
	case err != nil:
		return nil, &contract.ErrorBody{Code: errcode.SpendRecordFailed, Message: "step " + step.ID + ": the reservation of its quote could not be recorded, so nothing was sent: " + err.Error()}
	}
	ch.reserved = amount
	return ch, nil
}

// Settle decides what a priced call owes now that it ended, gives
// back a reservation it proved it did not owe, and puts the call's cost
// fields on its receipt: {quoted_usd_micro?, settled_usd_micro?, payer}. An
// unknown quote or settlement stays absent rather than a fictional zero.
func (m Money) Settle(ctx context.Context, ch *Charge, end authority.CallEnd, body *receipt.Body) {
	if ch == nil {
		return
	}
	s := authority.Settle(ch.quote, end)
	release := s.Release
	var moved *int64
	if p := ch.payment; p != nil {
		// A payment's amount moved only once the provider accepted the
		// call; refused or never sent it moved nothing and is given back;
		// an unknown outcome keeps it held.
		moved = p.MovedBy(end)
		if moved != nil && *moved == 0 && p.Countable {
			release += p.MicroUSD
		}
	}
	if release = min(release, ch.reserved); release > 0 {
		// A release that fails to record keeps the reservation, which
		// never lets the run overspend.
		_ = m.Journal.AppendEvent(context.WithoutCancel(ctx), m.Spend.RootID, SpendStream, EventSpendReleased, SpendEvent{Address: ch.address, Capability: ch.cap, MicroUSD: release})
	}
	cost := map[string]any{"payer": PayerOf(body, m.Run.Actor())}
	if ch.quote.Known {
		cost["quoted_usd_micro"] = ch.quote.MicroUSD
	}
	if s.Settled != nil {
		cost["settled_usd_micro"] = *s.Settled
	}
	if p := ch.payment; p != nil {
		pf := p.Fields()
		if moved != nil && p.Countable {
			pf["moved_usd_micro"] = *moved
		}
		cost["payment"] = pf
	}
	if body.Extra == nil {
		body.Extra = map[string]any{}
	}
	body.Extra["cost"] = cost
}

// PayerOf is who a call's charge falls on: the principal a delegation names
// when the call ran under one, else the run's actor.
func PayerOf(body *receipt.Body, actor string) string {
	if term, ok := body.Extra["execution_term"].(map[string]any); ok {
		if del, ok := term["delegation"].(map[string]any); ok {
			if p, ok := del["principal_ref"].(string); ok && p != "" {
				return p
			}
		}
	}
	return actor
}

// notSent are the host's failures that happen before a plugin receives the
// call: nothing can have left.
var notSent = map[errcode.Code]bool{
	errcode.PluginNotFound: true, errcode.PluginUnpinned: true, errcode.PluginChecksumMismatch: true,
	errcode.PluginLockInvalid: true, errcode.PluginProtocolUnsupported: true, errcode.PluginStartFailed: true,
	errcode.CapabilityNotFound: true, errcode.PluginDescribeMismatch: true, errcode.PluginDescribeInvalid: true,
	errcode.CapabilityRoleUnserved: true, errcode.DataAdapterNotFound: true, errcode.CapabilityInputInvalid: true,
	errcode.CapabilitySchemaUnsupported: true, errcode.Interrupted: true,
}

// CallEnd is how far a call got, for its charge. A plugin's refusal or
// failure is an answer: per request it may have left, so it is billable;
// per success it owes nothing unless the plugin says it cannot tell
// (ambiguous_commit). A crash, timeout or broken transport may have sent it.
func CallEnd(res *sdk.Result, err error) authority.CallEnd {
	if err != nil {
		var he *host.Error
		if errors.As(err, &he) && notSent[he.Code] {
			return authority.EndNotSent
		}
		return authority.EndUnknown
	}
	switch {
	case res.Status == sdk.StatusOK:
		return authority.EndAccepted
	case res.Code == errcode.AmbiguousCommit:
		return authority.EndUnknown
	}
	return authority.EndRejected
}

// IsSpendRefusal: a refusal the money limit made, which no retry changes.
func IsSpendRefusal(f *contract.ErrorBody) bool {
	return f != nil && (f.Code == errcode.CostLimitExceeded || f.Code == errcode.CostQuoteUnknown)
}

// WithSpendLimit is an authority document with max_spend_micro_usd narrowed
// to n micro-USD: the least of what it already states and n, so a person's
// --max-spend can only narrow a run's money limit, never widen it. An empty
// document (no host stated one) becomes one that states only the limit,
// which narrows nothing else. The result is parsed again before use.
func WithSpendLimit(current []byte, n int64) ([]byte, error) {
	var a *authority.Authority
	if len(bytes.TrimSpace(current)) > 0 {
		var err error
		if a, err = authority.Parse(current); err != nil {
			return nil, err
		}
	}
	doc := map[string]json.RawMessage{}
	if a != nil {
		if err := json.Unmarshal(current, &doc); err != nil {
			return nil, err
		}
		if v, ok := a.MaxSpendMicroUSD.Value(); ok && v < n {
			n = v
		}
	}
	doc["max_spend_micro_usd"] = json.RawMessage(strconv.FormatInt(n, 10))
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if _, err := authority.Parse(out); err != nil {
		return nil, err
	}
	return out, nil
}

type quoteCoversKey struct{}

// CoveredByQuote marks the calls an operation makes within its own quote:
// the readbacks that confirm a write. The quote covers the whole declared
// request sequence, so they reserve and settle nothing of their own.
func CoveredByQuote(ctx context.Context) context.Context {
	return context.WithValue(ctx, quoteCoversKey{}, true)
}

func quoteCovers(ctx context.Context) bool {
	covered, _ := ctx.Value(quoteCoversKey{}).(bool)
	return covered
}

// CostFromCustody puts the cost fields on a connector write's receipt when
// custody settled it with no call sent by this driver: an act already done
// under its key records zero new charge; the call's own earlier attempt,
// confirmed now by readback, owes its quote (whose reservation the run has
// held since it was sent); a refusal before sending owes nothing. What is
// still unknown stays absent.
func (m Money) CostFromCustody(def *sdk.Definition, status contract.StepStatus, body *receipt.Body) {
	if def == nil || def.Cost == nil || body.Extra["cost"] != nil {
		return
	}
	q := QuoteOf(def)
	cost := map[string]any{"payer": PayerOf(body, m.Run.Actor())}
	if q.Known {
		cost["quoted_usd_micro"] = q.MicroUSD
	}
	cx, _ := body.Extra["connector"].(map[string]any)
	switch {
	case status == contract.StepSuccess && cx != nil && cx["finality"] == FinalityAlreadyDone:
		cost["settled_usd_micro"] = 0
	case status == contract.StepSuccess && q.Known:
		cost["settled_usd_micro"] = q.MicroUSD
	case status == contract.StepRefused:
		cost["settled_usd_micro"] = 0
	}
	if pay, ok := cx["payment"].(map[string]any); ok {
		// Done before under its key moved nothing now; confirmed by
		// readback it moved the amount reserved since it was sent.
		pf := map[string]any{}
		for k, v := range pay {
			pf[k] = v
		}
		usd, countable := pay["usd_micro"]
		switch {
		case !countable:
		case status == contract.StepSuccess && cx["finality"] == FinalityAlreadyDone, status == contract.StepRefused:
			pf["moved_usd_micro"] = 0
		case status == contract.StepSuccess:
			pf["moved_usd_micro"] = usd
		}
		cost["payment"] = pf
	}
	if body.Extra == nil {
		body.Extra = map[string]any{}
	}
	body.Extra["cost"] = cost
}
