package run

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
)

// Payments. The money a payment operation moves is derived from its
// declared inputs (pkg.OperationPayment), so a step never states an amount.
// It binds the write's plan digest and the approval's intent, is shown in
// the operator summary, and under a money limit is reserved with the call's
// quote before anything is sent: USDC units count as micro-USD, USD units as
// cents, and a payment in any other currency is refused, since it cannot be
// counted.

// Payment refusal codes.
const (
	CodePaymentAmountInvalid       = "payment_amount_invalid"
	CodePaymentCurrencyInvalid     = "payment_currency_invalid"
	CodePaymentCurrencyUncountable = "payment_currency_uncountable"
)

// payment is one call's transfer.
type payment struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	// MicroUSD is what it counts as under a money limit; valid only when
	// Countable.
	MicroUSD  int64 `json:"usd_micro,omitempty"`
	Countable bool  `json:"-"`
}

// microPer is what one unit of a countable currency is in micro-USD.
var microPer = map[string]int64{"USDC": 1, "USD": 10_000}

// paymentOf derives the payment an operation call moves from its checked
// inputs, or nil for an operation that moves none.
func paymentOf(op *pkg.ConnectorOperation, checked map[string]any) (*payment, *contract.ErrorBody) {
	if op.Payment == nil {
		return nil, nil
	}
	amount, ok := wholeNumber(checked[strings.TrimPrefix(op.Payment.Amount, "$input.")])
	if !ok || amount < 0 {
		return nil, &contract.ErrorBody{Code: CodePaymentAmountInvalid, Message: fmt.Sprintf("operation %s: its payment amount (%s) must be a whole number, 0 or more; nothing was sent", op.Name, op.Payment.Amount)}
	}
	currency := op.Payment.Currency
	if name, ok := strings.CutPrefix(currency, "$input."); ok {
		currency, _ = checked[name].(string)
	}
	if currency == "" {
		return nil, &contract.ErrorBody{Code: CodePaymentCurrencyInvalid, Message: fmt.Sprintf("operation %s: its payment currency (%s) is empty; nothing was sent", op.Name, op.Payment.Currency)}
	}
	p := &payment{Amount: amount, Currency: currency}
	if per, ok := microPer[currency]; ok && amount <= math.MaxInt64/per {
		p.MicroUSD, p.Countable = amount*per, true
	}
	return p, nil
}

// fields is the payment as receipts, the plan and the summary show it.
func (p *payment) fields() map[string]any {
	out := map[string]any{"amount": p.Amount, "currency": p.Currency}
	if p.Countable {
		out["usd_micro"] = p.MicroUSD
	}
	return out
}

// admitPayment refuses, before any gate asks a person anything, a payment
// call a money limit cannot count: its currency is neither USD nor USDC.
// Without a limit nothing is reserved and any currency goes.
func (rc *runCtx) admitPayment(step *pkg.Step, inputs map[string]any) *contract.ErrorBody {
	mo := rc.manifestOp(step)
	if mo == nil || mo.op.Payment == nil {
		return nil
	}
	if _, ok := rc.effective(step).Limits.MaxSpendMicroUSD.Value(); !ok {
		return nil
	}
	checked, err := mo.op.CheckInputs(inputs)
	if err != nil {
		return nil // the call's own checks refuse it, with the input's code
	}
	p, refusal := paymentOf(mo.op, checked)
	if refusal != nil {
		return refusal
	}
	if !p.Countable {
		return &contract.ErrorBody{Code: CodePaymentCurrencyUncountable, Message: fmt.Sprintf(
			"step %s moves %d %s through %s, and under a money limit runx counts only USD (cents) and USDC (micro-USD); nothing was sent", step.ID, p.Amount, p.Currency, mo.def.ID)}
	}
	return nil
}

type paymentKey struct{}

// withPayment carries a write's payment to the reservation of its call.
func withPayment(ctx context.Context, p *payment) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, paymentKey{}, p)
}

func paymentIn(ctx context.Context) *payment {
	p, _ := ctx.Value(paymentKey{}).(*payment)
	return p
}

// movedBy is what a payment moved, as far as the call's end shows: all of
// it once the provider accepted, nothing when it refused or nothing was
// sent, and unknown (nil) when the outcome is.
func (p *payment) movedBy(end authority.CallEnd) *int64 {
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
