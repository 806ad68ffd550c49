package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// CrashTarget is a driver whose provider is a server the test can kill.
type CrashTarget struct {
	// Open opens a driver against the server, registering its cleanup.
	Open Opener
	// Kill kills the server at once, as a crash would. It is called from
	// another goroutine while appends are in flight.
	Kill func() error
	// Restart starts the server again on the same data and returns once it
	// is ready. It is called from the test goroutine.
	Restart func(t testing.TB)
}

const (
	crashWriters      = 4
	crashBeforeKill   = 300 // successful appends before the kill
	crashWriteTimeout = 2 * time.Minute
)

type crashAttempt struct {
	key      string
	event    json.RawMessage
	expected int64
	result   *driver.AppendResult
	err      error
}

// RunCrash kills the server while appends are in flight and proves, after a
// restart, that every append either committed (proven by readback) or
// failed with provider_unavailable or ambiguous_commit; that a failure that
// claims no commit had none; and that retrying each failed append with its
// idempotency key commits it exactly once — never a silent loss, never a
// duplicate.
func RunCrash(t *testing.T, target CrashTarget) {
	d := target.Open(t)
	streams := make([]driver.Stream, crashWriters)
	logs := make([][]crashAttempt, crashWriters)
	var successes atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), crashWriteTimeout)
	defer cancel()

	var wg sync.WaitGroup
	for w := range crashWriters {
		streams[w] = freshStream(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			known := int64(0)
			for i := 0; ctx.Err() == nil; i++ {
				a := crashAttempt{key: fmt.Sprintf("c%d-%d", w, i), expected: known,
					event: json.RawMessage(fmt.Sprintf(`{"type":"conformance.crash","payload":{"w":%d,"i":%d}}`, w, i))}
				r, err := d.Append(ctx, driver.AppendRequest{Stream: streams[w], ExpectedVersion: version(known), IdempotencyKey: a.key, Event: a.event})
				if err != nil {
					a.err = err
					logs[w] = append(logs[w], a)
					return // the stream's state is unknown until the server is back
				}
				a.result = &r
				logs[w] = append(logs[w], a)
				known = r.AfterVersion
				successes.Add(1)
			}
		}()
	}
	killed := make(chan error, 1)
	go func() {
		for successes.Load() < crashBeforeKill && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		killed <- target.Kill()
	}()
	wg.Wait()
	if err := <-killed; err != nil {
		t.Fatalf("killing the server: %v", err)
	}
	target.Restart(t)

	outcomes := map[string]int{}
	for w := range crashWriters {
		outcomes[proveStream(t, d, target.Open(t), streams[w], logs[w])]++
	}
	t.Logf("%d appends acknowledged before the kill; the in-flight ones ended: %v", successes.Load(), outcomes)
}

// proveStream checks one writer's history after the restart, then retries
// its failed append through the driver that saw the crash (which must
// recover) and checks the stream holds every key exactly once.
func proveStream(t *testing.T, crashed, fresh driver.Driver, s driver.Stream, log []crashAttempt) string {
	t.Helper()
	if len(log) == 0 || log[len(log)-1].err == nil {
		t.Fatalf("a writer ended without a failure: %d attempts", len(log))
	}
	failed := log[len(log)-1]
	code := driver.CodeOf(failed.err)
	var typed *driver.Error
	errors.As(failed.err, &typed)
	if code != errcode.ProviderUnavailable && code != errcode.AmbiguousCommit {
		t.Fatalf("an append cut off by the crash failed with %v; want provider_unavailable or ambiguous_commit", failed.err)
	}
	before := readAll(t, fresh, s)
	for i, a := range log[:len(log)-1] {
		if i >= len(before) || before[i].IdempotencyKey != a.key || before[i].Digest != a.result.EventDigest || before[i].Version != a.result.AfterVersion {
			t.Fatalf("acknowledged append %s (version %d) is missing after the restart: a silent loss", a.key, a.result.AfterVersion)
		}
	}
	landed := len(before) == len(log)
	if len(before) > len(log) || (landed && before[len(before)-1].IdempotencyKey != failed.key) {
		t.Fatalf("the stream holds %d events for %d attempts", len(before), len(log))
	}
	state := typed.Evidence[driver.EvidenceCommitState]
	if landed && code == errcode.ProviderUnavailable && state != driver.CommitUnknown {
		t.Fatalf("the append was reported provably uncommitted (%s) but it committed", state)
	}

	var r driver.AppendResult
	var err error
	for range 50 { // the crashed driver's pooled connections recover on use
		r, err = crashed.Append(ctxFor(t), driver.AppendRequest{Stream: s, ExpectedVersion: version(failed.expected), IdempotencyKey: failed.key, Event: failed.event})
		if driver.CodeOf(err) != errcode.ProviderUnavailable {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("retrying %s after the restart: %s", failed.key, describe(err))
	}
	if r.Replayed != landed || r.AfterVersion != int64(len(log)) {
		t.Fatalf("retry of %s: replayed %v at version %d; it had landed: %v", failed.key, r.Replayed, r.AfterVersion, landed)
	}
	if again := appendOK(t, fresh, s, nil, failed.key, failed.event); !again.Replayed || again.AfterVersion != r.AfterVersion {
		t.Fatalf("a second retry is not a replay: %+v", again)
	}
	after := readAll(t, fresh, s)
	if len(after) != len(log) {
		t.Fatalf("after the retries the stream holds %d events, want %d: a duplicate or a loss", len(after), len(log))
	}
	seen := map[string]bool{}
	for _, e := range after {
		if seen[e.IdempotencyKey] {
			t.Fatalf("event %s appears twice", e.IdempotencyKey)
		}
		seen[e.IdempotencyKey] = true
	}
	checkHistory(t, fresh, s, after)
	label := fmt.Sprintf("%s[%s/%s]", code, typed.Evidence[driver.EvidenceStage], state)
	if landed {
		return label + " had committed"
	}
	return label + " had not committed"
}
