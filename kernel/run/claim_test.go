package run

import (
	"testing"

	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Which calls an earlier driver sent and recorded no outcome of may be sent
// again by the next, decided by the description alone: an effect-free call
// reruns, a journaled change its plugin recovers reruns, a call its plugin
// deduplicates reruns; anything else that may act (a process, a write, an
// unknown or undescribed capability, a priced read nobody deduplicates)
// waits at its retry.
func TestResendOfUnconfirmedCalls(t *testing.T) {
	price := func(v int64) *sdk.Cost { return &sdk.Cost{USDMicro: &v, Per: "call", Source: "declared"} }
	for _, c := range []struct {
		name string
		def  *sdk.Definition
		want resendClass
	}{
		{"undescribed", nil, resendUnsafe},
		{"effect none", &sdk.Definition{Effect: sdk.EffectNone}, resendFree},
		{"read", &sdk.Definition{Effect: sdk.EffectRead}, resendFree},
		{"free read with a zero price", &sdk.Definition{Effect: sdk.EffectRead, Cost: price(0)}, resendFree},
		{"priced read", &sdk.Definition{Effect: sdk.EffectRead, Cost: price(10)}, resendUnsafe},
		{"read of unknown price", &sdk.Definition{Effect: sdk.EffectRead, Cost: &sdk.Cost{Per: "call", Source: "declared"}}, resendUnsafe},
		{"priced read its provider deduplicates", &sdk.Definition{Effect: sdk.EffectRead, Cost: price(10), Idempotent: true}, resendDeduplicated},
		{"process", &sdk.Definition{Effect: sdk.EffectProcess}, resendUnsafe},
		{"process keyed by its call", &sdk.Definition{Effect: sdk.EffectProcess, Idempotent: true}, resendDeduplicated},
		{"write", &sdk.Definition{Effect: sdk.EffectWrite}, resendUnsafe},
		{"write that recovers", &sdk.Definition{Effect: sdk.EffectWrite, Recovers: true}, resendRecovered},
		{"write that deduplicates", &sdk.Definition{Effect: sdk.EffectWrite, Idempotent: true}, resendDeduplicated},
		{"write that previews only", &sdk.Definition{Effect: sdk.EffectWrite, Previews: true}, resendUnsafe},
		{"command role", &sdk.Definition{Effect: sdk.EffectProcess, Roles: []string{sdk.RoleCommand}}, resendUnsafe},
		{"unknown effect class", &sdk.Definition{Effect: "teleport"}, resendUnsafe},
		{"empty effect class", &sdk.Definition{}, resendUnsafe},
	} {
		if got := resendOf(c.def); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}
