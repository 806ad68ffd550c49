package journal

import (
	"context"
	"strings"
	"testing"
)

// The next seq of a run's steps and requests is found through an index,
// never by reading every row of the run: without it, recording the n-th
// step read n rows, and a script of n sequential calls cost O(n^2) in the
// journal alone. SQLite's own plan says which it does.
func TestNextSeqUsesAnIndex(t *testing.T) {
	j := open(t)
	for _, q := range []struct{ index, sql string }{
		{"steps_seq", sqlNextStepSeq},
		{"steps_seq", `SELECT COALESCE(MAX(seq), 0) FROM steps WHERE run_id = ?`},
		{"requests_seq", `SELECT COALESCE(MAX(seq), 0) FROM requests WHERE run_id = ?`},
	} {
		rows, err := j.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q.sql, "run_1")
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		got := strings.Join(plan, "; ")
		if !strings.Contains(got, "USING COVERING INDEX "+q.index) {
			t.Errorf("%s\nplans as %q, want a search of index %s", q.sql, got, q.index)
		}
	}
}
