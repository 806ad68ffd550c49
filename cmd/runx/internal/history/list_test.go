package history

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run"
)

// The list merges sealed and open runs newest first in one time format,
// leaves the runs runx test kept apart, filters by skill, status and time,
// and says what a limit or the test runs left out.
func TestListNewestFirstFilteredTestsApart(t *testing.T) {
	runs := []receipt.IndexEntry{
		{RunID: "run_a", SkillName: "s", Outcome: seal.OutcomeCompleted, SealedAt: "2026-12-01T10:00:00.000Z", Root: true},
		{RunID: "run_test_0011", SkillName: "s", Outcome: seal.OutcomeCompleted, SealedAt: "2026-01-01T00:00:00.000Z", Root: true},
		{RunID: "run_c", SkillName: "t", Outcome: seal.OutcomeFailed, SealedAt: "2026-12-03T09:00:00.5Z", Root: true},
	}
	open := []run.OpenRun{{RunID: "run_b", SkillName: "s", Method: "go", State: journal.StatePaused, UpdatedAt: "2026-12-02T08:30:00.123456789Z"}}
	ids := func(sel selection) string {
		var out []string
		for _, r := range sel.rows {
			out = append(out, r.runID)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		f            Filter
		want         string
		older, tests int
	}{
		{Filter{}, "run_c run_b run_a", 0, 1},
		{Filter{Limit: 2}, "run_c run_b", 1, 1},
		{Filter{Skill: "s"}, "run_b run_a", 0, 1},
		{Filter{Status: "paused"}, "run_b", 0, 1},
		{Filter{Since: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}, "run_c run_b", 0, 1},
		{Filter{Tests: true}, "run_test_0011", 0, 0},
	} {
		sel := selectRuns(runs, open, c.f)
		if got := ids(sel); got != c.want || sel.older != c.older || sel.tests != c.tests {
			t.Errorf("%+v: %q (older %d, tests %d), want %q (older %d, tests %d)", c.f, got, sel.older, sel.tests, c.want, c.older, c.tests)
		}
	}

	var out bytes.Buffer
	printList(&out, selectRuns(runs, open, Filter{Limit: 2}), true)
	want := "WHEN                  RUN                             STATUS      SKILL\n" +
		"2026-12-03T09:00:00Z  run_c                           failed      t\n" +
		"2026-12-02T08:30:00Z  run_b                           paused      s#go\n" +
		"1 older runs not shown: runx history --limit 0 lists them all\n" +
		"1 test runs (runx test) not shown: runx history --tests lists them\n"
	if out.String() != want {
		t.Fatalf("the list:\n%s\nwant\n%s", out.String(), want)
	}
}

// parseSince reads a duration back from now, days, a date or an RFC 3339
// time, and nothing else.
func TestSince(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"90m":                  now.Add(-90 * time.Minute),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"2026-12-01":           time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"2026-12-01T10:00:00Z": time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("--since %s: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yesterday", "-1h", "-2d", "12/01/2026"} {
		if _, err := parseSince(in, now); err == nil {
			t.Errorf("--since %q was taken", in)
		}
	}
}
