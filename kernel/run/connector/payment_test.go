package connector

import (
	"math"
	"testing"

	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// A payment is read from the call's checked inputs: USD counts as cents and
// USDC as micro-USD; another currency, or an amount too large to count,
// is uncountable; a negative amount or an empty currency is refused.
func TestPaymentFromInputs(t *testing.T) {
	op := &pkg.ConnectorOperation{Name: "tip", Payment: &pkg.OperationPayment{Amount: "$input.cents", Currency: "$input.currency"}}
	for _, tc := range []struct {
		name      string
		in        map[string]any
		micro     int64
		countable bool
		code      errcode.Code
	}{
		{"usd cents", map[string]any{"cents": int64(50), "currency": "USD"}, 500000, true, ""},
		{"usdc units", map[string]any{"cents": float64(250000), "currency": "USDC"}, 250000, true, ""},
		{"another currency", map[string]any{"cents": int64(50), "currency": "EUR"}, 0, false, ""},
		{"too large to count", map[string]any{"cents": int64(math.MaxInt64 / 100), "currency": "USD"}, 0, false, ""},
		{"negative", map[string]any{"cents": int64(-1), "currency": "USD"}, 0, false, errcode.PaymentAmountInvalid},
		{"not whole", map[string]any{"cents": 1.5, "currency": "USD"}, 0, false, errcode.PaymentAmountInvalid},
		{"empty currency", map[string]any{"cents": int64(1), "currency": ""}, 0, false, errcode.PaymentCurrencyInvalid},
	} {
		p, refusal := PaymentOf(op, tc.in)
		switch {
		case tc.code != "":
			if refusal == nil || refusal.Code != tc.code {
				t.Errorf("%s: want %s, got %v", tc.name, tc.code, refusal)
			}
		case refusal != nil:
			t.Errorf("%s: refused %v", tc.name, refusal)
		case p.Countable != tc.countable || p.MicroUSD != tc.micro:
			t.Errorf("%s: got %+v", tc.name, p)
		}
	}
	if p, refusal := PaymentOf(&pkg.ConnectorOperation{Name: "post"}, nil); p != nil || refusal != nil {
		t.Fatal("an operation that declares no payment moves none")
	}
}
