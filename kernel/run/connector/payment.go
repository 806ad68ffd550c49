package connector

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/jsontext"
)

// Payments. The money a payment operation moves is derived from its
// declared inputs (pkg.OperationPayment), so a step never states an amount.
// It binds the write's plan digest and the approval's intent, is shown in
// the operator summary, and under a money limit is reserved with the call's
// quote before anything is sent: USDC units count as micro-USD, USD units as
// cents, and a payment in any other currency is refused, since it cannot be
// counted.

// Payment refusal codes.

// Payment is one call's transfer.
type Payment struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	// MicroUSD is what it counts as under a money limit; valid only when
	// Countable.
	MicroUSD  int64 `json:"usd_micro,omitempty"`
	Countable bool  `json:"-"`
}

// microPer is what one unit of a countable currency is in micro-USD.
var microPer = map[string]int64{"USDC": 1, "USD": 10_000}

// PaymentOf derives the payment an operation call moves from its checked
// inputs, or nil for an operation that moves none.
func PaymentOf(op *pkg.ConnectorOperation, checked map[string]any) (*Payment, *contract.ErrorBody) {
	if op.Payment == nil {
		return nil, nil
	}
	amount, ok := jsontext.WholeNumber(checked[strings.TrimPrefix(op.Payment.Amount, "$input.")])
	if !ok || amount < 0 {
		return nil, &contract.ErrorBody{Code: errcode.PaymentAmountInvalid, Message: fmt.Sprintf("operation %s: its payment amount (%s) must be a whole number, 0 or more; nothing was sent", op.Name, op.Payment.Amount)}
	}
	currency := op.Payment.Currency
	if name, ok := strings.CutPrefix(currency, "$input."); ok {
		currency, _ = checked[name].(string)
	}
	if currency == "" {
		return nil, &contract.ErrorBody{Code: errcode.PaymentCurrencyInvalid, Message: fmt.Sprintf("operation %s: its payment currency (%s) is empty; nothing was sent", op.Name, op.Payment.Currency)}
	}
	p := &Payment{Amount: amount, Currency: currency}
	if per, ok := microPer[currency]; ok && amount <= math.MaxInt64/per {
		p.MicroUSD, p.Countable = amount*per, true
	}
	return p, nil
}

// Fields is the payment as receipts, the plan and the summary show it.
func (p *Payment) Fields() map[string]any {
	out := map[string]any{"amount": p.Amount, "currency": p.Currency}
	if p.Countable {
		out["usd_micro"] = p.MicroUSD
	}
	return out
}

// AdmitPayment refuses, before any gate asks a person anything, a payment
// call a money limit cannot count: its currency is neither USD nor USDC.
// Without a limit nothing is reserved and any currency goes.
func (m Money) AdmitPayment(step *pkg.Step, mo *ManifestOp, inputs map[string]any) *contract.ErrorBody {
	if mo == nil || mo.Op.Payment == nil {
		return nil
	}
	if _, ok := m.Run.Limits(step).MaxSpendMicroUSD.Value(); !ok {
		return nil
	}
	checked, err := mo.Op.CheckInputs(inputs)
	if err != nil {
		return nil // the call's own checks refuse it, with the input's code
	}
	p, refusal := PaymentOf(mo.Op, checked)
	if refusal != nil {
		return refusal
	}
	if !p.Countable {
		return &contract.ErrorBody{Code: errcode.PaymentCurrencyUncountable, Message: fmt.Sprintf(
			"step %s moves %d %s through %s, and under a money limit runx counts only USD (cents) and USDC (micro-USD); nothing was sent", step.ID, p.Amount, p.Currency, mo.Def.ID)}
	}
	return nil
}

type paymentKey struct{}

// WithPayment carries a write's payment to the reservation of its call.
func WithPayment(ctx context.Context, p *Payment) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, paymentKey{}, p)
}

func paymentIn(ctx context.Context) *Payment {
	p, _ := ctx.Value(paymentKey{}).(*Payment)
	return p
}

// MovedBy is what a payment moved, as far as the call's end shows: all of
// it once the provider accepted, nothing when it refused or nothing was
// sent, and unknown (nil) when the outcome is.
func (p *Payment) MovedBy(end authority.CallEnd) *int64 {
	var zero int64
	switch end {
	case authority.EndAccepted:
		v := p.MicroUSD
		return &v
	case authority.EndRejected, authority.EndNotSent:
		return &zero
	}
	return nil
}
