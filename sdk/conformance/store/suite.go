package store

import (
	"testing"

	"github.com/runxhq/runx/sdk/store/driver"
)

// Run proves that a store driver keeps the governed data plane's semantics.
// A driver author calls it from a test with an Opener for their driver:
//
//	func TestConformance(t *testing.T) {
//		store.Run(t, func(t testing.TB) driver.Driver {
//			d, err := mydriver.Open(ctx, cfg)
//			if err != nil { t.Fatal(err) }
//			t.Cleanup(func() { d.Close() })
//			return d
//		})
//	}
//
// Every refusal is asserted by its code. The heavy cases (8 concurrent
// appenders × 1,000 appends, paging through 100,000 events) are skipped only
// under -short.
func Run(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, d driver.Driver)
	}{
		{"AppendFirstEvent", testAppendFirstEvent},
		{"AppendChainsVersions", testAppendChainsVersions},
		{"AppendDerivesEventType", testAppendDerivesEventType},
		{"AppendStaleVersionRefused", testAppendStaleVersionRefused},
		{"AppendWithoutExpectedVersion", testAppendWithoutExpectedVersion},
		{"IdempotentReplay", testIdempotentReplay},
		{"IdempotencyConflict", testIdempotencyConflict},
		{"RequestRefusals", testRequestRefusals},
		{"StreamsAreIsolated", testStreamsAreIsolated},
		{"GoldenDigests", testGoldenDigests},
		{"Redaction", testRedaction},
		{"ReadEmptyStream", testReadEmptyStream},
		{"ReadTail", testReadTail},
		{"ReadForwardPages", testReadForwardPages},
		{"ReadRefusals", testReadRefusals},
		{"ReadResponseBytesCap", testReadResponseBytesCap},
		{"InspectKey", testInspectKey},
		{"ListKeys", testListKeys},
		{"ListKeysRefusals", testListKeysRefusals},
		{"CanceledContext", testCanceledContext},
		{"Closed", testClosed},
		{"RacingFirstAppends", testRacingFirstAppends},
		{"ReadsDuringAppends", testReadsDuringAppends},
		{"ConcurrentAppenders", testConcurrentAppenders},
		{"Paging100k", testPaging100k},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.fn(t, open(t))
		})
	}
}
