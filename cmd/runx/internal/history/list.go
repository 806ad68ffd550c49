package history

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/kernel/testrun"
)

// DefaultLimit is how many runs the human list shows when --limit is not
// given; --limit 0 shows them all. --json lists them all unless --limit
// is given.
const DefaultLimit = 20

// timeLayout is the one format the list shows a time in: UTC, to the
// second.
const timeLayout = "2006-01-02T15:04:05Z"

// Filter selects the runs the list shows.
type Filter struct {
	Skill  string
	Status string
	// Since is the earliest time shown; zero shows every run.
	Since time.Time
	// Limit is how many of the newest runs are shown; 0 shows all, -1 is
	// not given.
	Limit int
	// Tests lists only the runs `runx test` kept, which the list otherwise
	// leaves out.
	Tests bool
}

// statuses are what --status takes: a run's sealed outcome or the state of
// a run that has not sealed.
func statuses() []string {
	out := []string{}
	for _, o := range seal.RunOutcomes {
		out = append(out, string(o))
	}
	for _, s := range []journal.RunState{journal.StatePaused, journal.StateStopped, journal.StateRunning} {
		out = append(out, string(s))
	}
	return out
}

// parseStatus checks --status.
func parseStatus(s string) error {
	for _, known := range statuses() {
		if s == known {
			return nil
		}
	}
	return cli.Usagef("--status takes one of %s; got %q", strings.Join(statuses(), ", "), s)
}

// parseSince reads --since: a duration back from now (90m, 24h, 7d), a
// date (2026-12-01, midnight UTC) or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, cli.Usagef("--since takes a duration back from now (90m, 24h, 7d), a date (2026-12-01) or an RFC 3339 time; got %q", s)
}

// row is one run of the list, sealed or not.
type row struct {
	at     time.Time
	runID  string
	status string
	skill  string
}

// selection is the runs a filter keeps, newest first, and what it left
// out that a person may want.
type selection struct {
	rows []row
	// older is how many matching runs the limit left out; tests how many
	// test runs the list left out.
	older, tests int
}

// selectRuns merges the sealed and the open runs, newest first, and keeps
// those f selects.
func selectRuns(runs []receipt.IndexEntry, open []run.OpenRun, f Filter) selection {
	all := make([]row, 0, len(runs)+len(open))
	for _, e := range runs {
		all = append(all, row{at: parseTime(e.SealedAt), runID: e.RunID, status: string(e.Outcome), skill: cli.SkillMethod(e.SkillName, e.Method)})
	}
	for _, r := range open {
		all = append(all, row{at: parseTime(r.UpdatedAt), runID: r.RunID, status: string(r.State), skill: cli.SkillMethod(r.SkillName, r.Method)})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if !all[i].at.Equal(all[j].at) {
			return all[i].at.After(all[j].at)
		}
		return all[i].runID > all[j].runID
	})
	var sel selection
	for _, r := range all {
		if testrun.IsTestRun(r.runID) != f.Tests {
			if !f.Tests {
				sel.tests++
			}
			continue
		}
		name, _, _ := strings.Cut(r.skill, "#")
		if (f.Skill != "" && name != f.Skill) || (f.Status != "" && r.status != f.Status) || (!f.Since.IsZero() && r.at.Before(f.Since)) {
			continue
		}
		if f.Limit > 0 && len(sel.rows) == f.Limit {
			sel.older++
			continue
		}
		sel.rows = append(sel.rows, r)
	}
	return sel
}

// parseTime reads a recorded time; one that does not parse sorts last.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// printList writes the selection as a table with a header, and says how
// to see what it left out.
func printList(w io.Writer, sel selection, limitGiven bool) {
	if len(sel.rows) == 0 {
		fmt.Fprintln(w, "no runs match")
	} else {
		fmt.Fprintf(w, "%-20s  %-30s  %-10s  %s\n", "WHEN", "RUN", "STATUS", "SKILL")
		for _, r := range sel.rows {
			when := "-"
			if !r.at.IsZero() {
				when = r.at.Format(timeLayout)
			}
			fmt.Fprintf(w, "%-20s  %-30s  %-10s  %s\n", when, r.runID, r.status, visible(r.skill))
		}
	}
	if sel.older > 0 {
		hint := "runx history --limit 0 lists them all"
		if !limitGiven {
			hint = fmt.Sprintf("%d are shown unless --limit says otherwise; --limit 0 lists them all", DefaultLimit)
		}
		fmt.Fprintf(w, "%d older runs not shown: %s\n", sel.older, hint)
	}
	if sel.tests > 0 {
		fmt.Fprintf(w, "%d test runs (runx test) not shown: runx history --tests lists them\n", sel.tests)
	}
}
