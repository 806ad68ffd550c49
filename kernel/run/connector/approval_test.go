package connector

import (
	"testing"

	"github.com/runxhq/runx/kernel/authority"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// TestUnboundedMetering asks approval of exactly the calls that declare
// metered use with no USD quote while no money limit bounds the run.
func TestUnboundedMetering(t *testing.T) {
	usd := int64(5)
	metered := &sdk.Definition{Cost: &sdk.Cost{Per: "call", Source: "provider"}}
	quoted := &sdk.Definition{Cost: &sdk.Cost{USDMicro: &usd, Per: "call", Source: "provider"}}
	limited := authority.Limits{MaxSpendMicroUSD: authority.LimitOf(100)}
	for _, c := range []struct {
		name   string
		def    *sdk.Definition
		limits authority.Limits
		want   bool
	}{
		{"metered, no limit", metered, authority.Limits{}, true},
		{"metered under a limit", metered, limited, false},
		{"quoted", quoted, authority.Limits{}, false},
		{"no cost declared", &sdk.Definition{}, authority.Limits{}, false},
		{"no description", nil, authority.Limits{}, false},
	} {
		if got := UnboundedMetering(c.def, c.limits); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
