package step

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/sdk/errcode"
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
		want ResendClass
	}{
		{"undescribed", nil, ResendUnsafe},
		{"effect none", &sdk.Definition{Effect: sdk.EffectNone}, ResendFree},
		{"read", &sdk.Definition{Effect: sdk.EffectRead}, ResendFree},
		{"free read with a zero price", &sdk.Definition{Effect: sdk.EffectRead, Cost: price(0)}, ResendFree},
		{"priced read", &sdk.Definition{Effect: sdk.EffectRead, Cost: price(10)}, ResendUnsafe},
		{"read of unknown price", &sdk.Definition{Effect: sdk.EffectRead, Cost: &sdk.Cost{Per: "call", Source: "declared"}}, ResendUnsafe},
		{"priced read its provider deduplicates", &sdk.Definition{Effect: sdk.EffectRead, Cost: price(10), Idempotent: true}, ResendDeduplicated},
		{"process", &sdk.Definition{Effect: sdk.EffectProcess}, ResendUnsafe},
		{"process keyed by its call", &sdk.Definition{Effect: sdk.EffectProcess, Idempotent: true}, ResendDeduplicated},
		{"write", &sdk.Definition{Effect: sdk.EffectWrite}, ResendUnsafe},
		{"write that recovers", &sdk.Definition{Effect: sdk.EffectWrite, Recovers: true}, ResendRecovered},
		{"write that deduplicates", &sdk.Definition{Effect: sdk.EffectWrite, Idempotent: true}, ResendDeduplicated},
		{"write that previews only", &sdk.Definition{Effect: sdk.EffectWrite, Previews: true}, ResendUnsafe},
		{"command role", &sdk.Definition{Effect: sdk.EffectProcess, Roles: []string{sdk.RoleCommand}}, ResendUnsafe},
		{"unknown effect class", &sdk.Definition{Effect: "teleport"}, ResendUnsafe},
		{"empty effect class", &sdk.Definition{}, ResendUnsafe},
	} {
		if got := ResendOf(c.def); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

// A driver reads the claims an earlier one recorded: the latest attempt of
// each address stands, unless a later record withdraws that very attempt
// (its call never left, or was refused); a withdrawal of an earlier
// attempt withdraws nothing.
func TestClaimsReadBackFromTheRecord(t *testing.T) {
	j, err := journal.Open(t.TempDir(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ctx := context.Background()
	if err := j.CreateRun(ctx, &journal.Run{RunID: "run_c", SkillName: "s", Method: "m", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []struct {
		typ     string
		address string
		attempt int
	}{
		{EventCallClaimed, "one", 1},
		{EventCallClaimed, "two", 1},
		{EventCallUnclaimed, "two", 1},
		{EventCallClaimed, "three", 1},
		{EventCallClaimed, "three", 2},
		{EventCallUnclaimed, "three", 1},
		{EventCallClaimed, "four", 1},
		{EventCallUnclaimed, "four", 1},
		{EventCallClaimed, "four", 2},
	} {
		if err := j.AppendEvent(ctx, "run_c", "steps", ev.typ, claimRecord{Address: ev.address, Attempt: ev.attempt}); err != nil {
			t.Fatal(err)
		}
	}
	var claims Claims
	run := &Run{ID: "run_c", Journal: j}
	for address, want := range map[string]int{"one": 1, "two": 0, "three": 2, "four": 2, "five": 0} {
		c, err := claims.at(ctx, run, address)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if c != nil {
			got = c.Attempt
		}
		if got != want {
			t.Errorf("%s: the standing claim is attempt %d, want %d", address, got, want)
		}
	}
}

// Only a failure before the call left withdraws its claim: a crash, a
// timeout or a broken transport may come after it acted.
func TestNeverSentFailures(t *testing.T) {
	for code, want := range map[string]bool{
		"plugin_start_failed":     true,
		"interrupted":             true,
		"plugin_unpinned":         true,
		"capability_not_found":    true,
		"plugin_crashed":          false,
		"plugin_timeout":          false,
		"plugin_transport_failed": false,
		"plugin_output_too_large": false,
	} {
		if neverSent[errcode.Code(code)] != want {
			t.Errorf("%s: never sent %v, want %v", code, neverSent[errcode.Code(code)], want)
		}
	}
}
