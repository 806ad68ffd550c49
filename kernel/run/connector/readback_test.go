package connector

import (
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/pkg"
)

// Sending a write again is safe only while its provider honours the key:
// a declared idempotency header, within its window from the first send.
func TestResendSafeWithinIdempotencyWindow(t *testing.T) {
	sent := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	id := &pkg.OperationIdempotency{Header: "Idempotency-Key", WindowSeconds: 3600}
	for _, tc := range []struct {
		name string
		id   *pkg.OperationIdempotency
		at   time.Time
		want bool
	}{
		{"within the window", id, sent.Add(59 * time.Minute), true},
		{"past the window", id, sent.Add(61 * time.Minute), false},
		{"no deduplication declared", nil, sent.Add(time.Minute), false},
	} {
		if got := resendSafe(tc.id, sent.Format(time.RFC3339Nano), tc.at); got != tc.want {
			t.Errorf("%s: resendSafe = %v, want %v", tc.name, got, tc.want)
		}
	}
	if resendSafe(id, "", sent) {
		t.Error("an attempt with no recorded send time is not known to be within the window")
	}
}
