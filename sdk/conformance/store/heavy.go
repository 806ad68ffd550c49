package store

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

const (
	concurrentAppenders = 8
	appendsPerAppender  = 1000
	pagingEvents        = 100_000
	seedWriters         = 4
)

// testConcurrentAppenders: 8 appenders × 1,000 appends race on one stream,
// each retrying on version conflicts from the version the conflict names.
// Every event must appear exactly once, versions gapless, and the projection
// digest must equal a recomputation from the events.
func testConcurrentAppenders(t *testing.T, d driver.Driver) {
	if testing.Short() {
		t.Skip("heavy: skipped under -short")
	}
	s := freshStream(t)
	ctx := ctxWithin(t, heavyTimeout)
	var wg sync.WaitGroup
	errs := make(chan error, concurrentAppenders)
	conflicts := make([]int, concurrentAppenders)
	for w := range concurrentAppenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			known := int64(0)
			for i := range appendsPerAppender {
				key := fmt.Sprintf("w%d-%d", w, i)
				event := []byte(fmt.Sprintf(`{"type":"conformance.raced","payload":{"w":%d,"i":%d}}`, w, i))
				for {
					r, err := d.Append(ctx, driver.AppendRequest{Stream: s, ExpectedVersion: version(known), IdempotencyKey: key, Event: event})
					var e *driver.Error
					if errors.As(err, &e) && e.Code == errcode.VersionConflict && e.CurrentVersion != nil {
						known = *e.CurrentVersion
						conflicts[w]++
						continue
					}
					if err != nil {
						errs <- fmt.Errorf("appender %d append %d: %w", w, i, err)
						return
					}
					if r.Replayed || r.BeforeVersion != known {
						errs <- fmt.Errorf("appender %d append %d: replayed %v before %d expected %d", w, i, r.Replayed, r.BeforeVersion, known)
						return
					}
					known = r.AfterVersion
					break
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	events := readAll(t, d, s)
	if len(events) != concurrentAppenders*appendsPerAppender {
		t.Fatalf("%d events, want %d", len(events), concurrentAppenders*appendsPerAppender)
	}
	requireKeysOnce(t, events, func(w, i int) string { return fmt.Sprintf("w%d-%d", w, i) }, concurrentAppenders, appendsPerAppender)
	checkHistory(t, d, s, events)
	total := 0
	for _, c := range conflicts {
		total += c
	}
	t.Logf("%d appends, %d version conflicts retried", len(events), total)
}

// testPaging100k: 100,000 events read back in pages of 500, each continuing
// from the last page's next_after_version.
func testPaging100k(t *testing.T, d driver.Driver) {
	if testing.Short() {
		t.Skip("heavy: skipped under -short")
	}
	s := freshStream(t)
	ctx := ctxWithin(t, heavyTimeout)
	per := pagingEvents / seedWriters
	var wg sync.WaitGroup
	errs := make(chan error, seedWriters)
	for w := range seedWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				event := []byte(fmt.Sprintf(`{"type":"conformance.paged","payload":{"w":%d,"i":%d}}`, w, i))
				if _, err := d.Append(ctx, driver.AppendRequest{Stream: s, IdempotencyKey: fmt.Sprintf("p%d-%d", w, i), Event: event}); err != nil {
					errs <- fmt.Errorf("seed %d/%d: %w", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	var events []driver.Event
	after := int64(0)
	var prev *int64
	pages := 0
	for {
		page, err := d.Read(ctx, driver.ReadRequest{Stream: s, AfterVersion: version(after), PreviousAfterVersion: prev, Limit: driver.MaxPageEvents})
		if err != nil {
			t.Fatalf("page %d after %d: %v", pages, after, err)
		}
		pages++
		if len(page.Events) > driver.MaxPageEvents {
			t.Fatalf("a page of %d events", len(page.Events))
		}
		events = append(events, page.Events...)
		if !page.HasMore {
			break
		}
		prev = version(after)
		after = page.NextAfterVersion
	}
	if len(events) != pagingEvents || pages != pagingEvents/driver.MaxPageEvents {
		t.Fatalf("%d events in %d pages", len(events), pages)
	}
	requireKeysOnce(t, events, func(w, i int) string { return fmt.Sprintf("p%d-%d", w, i) }, seedWriters, per)
	checkHistory(t, d, s, events)
	tail, err := d.Read(ctx, driver.ReadRequest{Stream: s, Limit: driver.MaxPageEvents})
	if err != nil || len(tail.Events) != driver.MaxPageEvents || tail.Events[0].Version != pagingEvents-driver.MaxPageEvents+1 {
		t.Fatalf("tail of 100,000: %d events, %v", len(tail.Events), err)
	}
}

func requireKeysOnce(t testing.TB, events []driver.Event, key func(w, i int) string, writers, per int) {
	t.Helper()
	seen := make(map[string]int, len(events))
	for _, e := range events {
		seen[e.IdempotencyKey]++
	}
	for w := range writers {
		for i := range per {
			if n := seen[key(w, i)]; n != 1 {
				t.Fatalf("event %s appears %d times", key(w, i), n)
			}
		}
	}
}

// testReadsDuringAppends: pages read while the stream grows are each
// consistent (contiguous, ending at or before the head they report), never a
// failure and never a torn page.
func testReadsDuringAppends(t *testing.T, d driver.Driver) {
	s := freshStream(t)
	ctx := ctxWithin(t, heavyTimeout)
	const appends = 300
	done := make(chan error, 1)
	go func() {
		for i := range appends {
			if _, err := d.Append(ctx, driver.AppendRequest{Stream: s, ExpectedVersion: version(int64(i)), IdempotencyKey: fmt.Sprintf("g%d", i), Event: ev("grow", i)}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	reads := 0
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			finished = true
		default:
		}
		for _, after := range []*int64{nil, version(0)} {
			page, err := d.Read(ctx, driver.ReadRequest{Stream: s, AfterVersion: after, Limit: 50})
			if err != nil {
				t.Fatalf("a read while appending: %s", describe(err))
			}
			for i, e := range page.Events {
				if (i > 0 && e.Version != page.Events[i-1].Version+1) || e.Version > page.Version {
					t.Fatalf("a torn page: versions %v at head %d", versions(page.Events), page.Version)
				}
			}
			if after == nil && len(page.Events) > 0 && page.Events[len(page.Events)-1].Version != page.Version {
				t.Fatalf("a tail that does not end at its head: %v at %d", versions(page.Events), page.Version)
			}
			reads++
		}
	}
	checkHistory(t, d, s, readAll(t, d, s))
	t.Logf("%d pages read while %d events were appended", reads, appends)
}

// testRacingFirstAppends: appends racing to create a stream (no expected
// version, distinct keys) all land; racing with one key, exactly one
// commits and the rest replay it.
func testRacingFirstAppends(t *testing.T, d driver.Driver) {
	const racers, rounds = 8, 10
	ctx := ctxWithin(t, heavyTimeout)
	for round := range rounds {
		for _, sameKey := range []bool{false, true} {
			s := freshStream(t)
			var wg sync.WaitGroup
			results := make([]driver.AppendResult, racers)
			errs := make([]error, racers)
			start := make(chan struct{})
			for r := range racers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					key, event := fmt.Sprintf("race-%d", r), ev("race", r)
					if sameKey {
						key, event = "race", ev("race", 0)
					}
					<-start
					results[r], errs[r] = d.Append(ctx, driver.AppendRequest{Stream: s, IdempotencyKey: key, Event: event})
				}()
			}
			close(start)
			wg.Wait()
			committed := 0
			for r := range racers {
				if errs[r] != nil {
					t.Fatalf("round %d (same key %v): racer %d: %s", round, sameKey, r, describe(errs[r]))
				}
				if !results[r].Replayed {
					committed++
				}
			}
			events := readAll(t, d, s)
			want := racers
			if sameKey {
				want = 1
			}
			if committed != want || len(events) != want {
				t.Fatalf("round %d (same key %v): %d committed, %d events; want %d", round, sameKey, committed, len(events), want)
			}
			checkHistory(t, d, s, events)
		}
	}
}
