package private

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/plugin/plugintest"
)

func privateContext(t *testing.T) (plugin.Context, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home", "private")
	b, err := json.Marshal(map[string]any{"dir": dir})
	if err != nil {
		t.Fatal(err)
	}
	return plugin.Context{RunID: "r", CallID: "c", Binding: b, Clock: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}, dir
}

// The description passes the SDK's own checks, and every capability holds
// the private data role the kernel knows it by.
func TestInfo(t *testing.T) {
	info := New().Info()
	if err := plugin.CheckInfo(&info); err != nil {
		t.Fatal(err)
	}
	for _, d := range info.Capabilities {
		if !d.HasRole(plugin.RolePrivateData) {
			t.Errorf("%s holds no role data.private", d.ID)
		}
	}
}

// Events are kept in the directory the kernel names, made private; a
// stream is said:<name> or observed:<name> and is named so in results.
func TestAppendAndReadStreams(t *testing.T) {
	c := plugintest.Serve(t, New())
	pc, dir := privateContext(t)
	res := c.Invoke(CapAppend, pc, map[string]any{"resource": "said:words", "aggregate_id": "me", "idempotency_key": "k1", "event": map[string]any{"type": "said", "text": "I am vegetarian"}})
	if res.Status != plugin.StatusOK {
		t.Fatalf("append: %+v", res)
	}
	var packet map[string]any
	if err := json.Unmarshal(res.Output, &packet); err != nil || packet["resource"] != "said:words" || packet["data_source_ref"] != Source {
		t.Fatalf("append packet %s %v", res.Output, err)
	}
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("the store's directory: %v %v", info, err)
	}
	for _, name := range []string{FileName, FileName + "-wal"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", name, info, err)
		}
	}
	for _, bad := range []string{"words", "said:", "heard:words", "said:a:b", "observed:a/b"} {
		res := c.Invoke(CapRead, pc, map[string]any{"resource": bad, "aggregate_id": "me"})
		if res.Status != plugin.StatusRefused || res.Code != errcode.PrivateStreamInvalid {
			t.Errorf("stream %q: %+v", bad, res)
		}
	}
	res = c.Invoke(CapRead, pc, map[string]any{"resource": "said:words", "aggregate_id": "me", "cursor": "x"})
	if res.Status != plugin.StatusRefused || res.Code != errcode.StoreRequestInvalid {
		t.Errorf("a read's unknown input: %+v", res)
	}
	other, _ := privateContext(t)
	other.Binding = json.RawMessage(`{"dir":"relative/private"}`)
	if res := c.Invoke(CapRead, other, map[string]any{"resource": "said:words", "aggregate_id": "me"}); res.Status != plugin.StatusRefused || res.Code != errcode.StoreBindingMissing {
		t.Errorf("a relative directory: %+v", res)
	}
}

// A standing event ends on a date: a read with standing_on selects the
// events standing on that date (today is the run clock's), and a
// standing that is not an end date is refused.
func TestStandingEvents(t *testing.T) {
	c := plugintest.Serve(t, New())
	pc, _ := privateContext(t)
	for i, ev := range []map[string]any{
		{"type": "diet", "text": "vegetarian", "standing": map[string]any{"ends_on": "2027-01-01"}},
		{"type": "away", "text": "on leave", "standing": map[string]any{"ends_on": "2026-12-03"}},
		{"type": "note", "text": "said once"},
	} {
		res := c.Invoke(CapAppend, pc, map[string]any{"resource": "observed:life", "aggregate_id": "me", "idempotency_key": string(rune('a' + i)), "event": ev})
		if res.Status != plugin.StatusOK {
			t.Fatalf("append %d: %+v", i, res)
		}
	}
	texts := func(on string) []string {
		t.Helper()
		in := map[string]any{"resource": "observed:life", "aggregate_id": "me"}
		if on != "" {
			in["standing_on"] = on
		}
		res := c.Invoke(CapRead, pc, in)
		var page struct {
			Events []struct {
				Event struct{ Text string } `json:"event"`
			} `json:"events"`
		}
		if res.Status != plugin.StatusOK || json.Unmarshal(res.Output, &page) != nil {
			t.Fatalf("read standing_on %q: %+v", on, res)
		}
		var out []string
		for _, e := range page.Events {
			out = append(out, e.Event.Text)
		}
		return out
	}
	if got := texts(""); len(got) != 3 {
		t.Errorf("a read without standing_on lists every event: %v", got)
	}
	if got := texts("2026-12-02"); len(got) != 2 {
		t.Errorf("standing on 2026-12-02: %v", got)
	}
	if got := texts("today"); len(got) != 1 || got[0] != "vegetarian" {
		t.Errorf("standing today (2026-12-03, the day leave ends): %v", got)
	}
	if got := texts("2027-01-01"); len(got) != 0 {
		t.Errorf("standing on 2027-01-01: %v", got)
	}
	for _, bad := range []any{"soon", map[string]any{"ends_on": "next week"}, map[string]any{"ends_on": "2027-01-01", "from": "2026-01-01"}} {
		res := c.Invoke(CapAppend, pc, map[string]any{"resource": "observed:life", "aggregate_id": "me", "idempotency_key": "z", "event": map[string]any{"type": "x", "standing": bad}})
		if res.Status != plugin.StatusRefused || res.Code != errcode.PrivateStreamInvalid {
			t.Errorf("standing %v: %+v", bad, res)
		}
	}
	res := c.Invoke(CapRead, pc, map[string]any{"resource": "observed:life", "aggregate_id": "me", "standing_on": "12/03/2026"})
	if res.Status != plugin.StatusRefused || res.Code != errcode.PrivateStreamInvalid {
		t.Errorf("standing_on not a date: %+v", res)
	}
}

// A search reads a stream forward for the events whose string values hold
// its text (any case) and, with standing_on, that stand on that date; it
// is bounded and continues from next_after_version. A search that selects
// by nothing is refused.
func TestSearch(t *testing.T) {
	c := plugintest.Serve(t, New())
	pc, _ := privateContext(t)
	events := []map[string]any{
		{"type": "diet", "text": "Vegetarian since May", "standing": map[string]any{"ends_on": "2099-01-01"}},
		{"type": "diet", "text": "vegetarian at work", "standing": map[string]any{"ends_on": "2020-01-01"}},
		{"type": "mood", "notes": []any{"calm", map[string]any{"why": "a VEGETARIAN lunch"}}},
		{"type": "mood", "text": "tired"},
	}
	for i, ev := range events {
		res := c.Invoke(CapAppend, pc, map[string]any{"resource": "observed:life", "aggregate_id": "me", "idempotency_key": string(rune('a' + i)), "event": ev})
		if res.Status != plugin.StatusOK {
			t.Fatalf("append %d: %+v", i, res)
		}
	}
	type page struct {
		Events []struct {
			Version int64 `json:"version"`
		} `json:"events"`
		HasMore bool  `json:"has_more"`
		Next    int64 `json:"next_after_version"`
	}
	find := func(in map[string]any) page {
		t.Helper()
		in["resource"], in["aggregate_id"] = "observed:life", "me"
		res := c.Invoke(CapSearch, pc, in)
		var p page
		if res.Status != plugin.StatusOK || json.Unmarshal(res.Output, &p) != nil {
			t.Fatalf("search %v: %+v", in, res)
		}
		return p
	}
	versions := func(p page) (out []int64) {
		for _, e := range p.Events {
			out = append(out, e.Version)
		}
		return out
	}
	if got := versions(find(map[string]any{"text": "vegetarian"})); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("text vegetarian: %v", got)
	}
	if got := versions(find(map[string]any{"text": "vegetarian", "standing_on": "today"})); len(got) != 1 || got[0] != 1 {
		t.Errorf("vegetarian and standing today: %v", got)
	}
	first := find(map[string]any{"text": "vegetarian", "limit": 1})
	if got := versions(first); len(got) != 1 || got[0] != 1 || !first.HasMore || first.Next != 1 {
		t.Errorf("the first match: %+v", first)
	}
	if got := versions(find(map[string]any{"text": "vegetarian", "after_version": first.Next})); len(got) != 2 || got[0] != 2 {
		t.Errorf("continued: %v", got)
	}
	for _, in := range []map[string]any{{}, {"text": ""}, {"cursor": "x", "text": "a"}} {
		in["resource"], in["aggregate_id"] = "observed:life", "me"
		if res := c.Invoke(CapSearch, pc, in); res.Status != plugin.StatusRefused || res.Code != errcode.StoreRequestInvalid {
			t.Errorf("search %v: %+v", in, res)
		}
	}
}

// A search is bounded: it reads at most its pages and answers where it
// stopped, with has_more, however few matches it found.
func TestSearchIsBounded(t *testing.T) {
	saved := searchPages
	searchPages = [2]int{2, 2}
	defer func() { searchPages = saved }()
	c := plugintest.Serve(t, New())
	pc, _ := privateContext(t)
	for i := range 7 {
		res := c.Invoke(CapAppend, pc, map[string]any{"resource": "said:words", "aggregate_id": "me", "idempotency_key": string(rune('a' + i)), "event": map[string]any{"type": "said", "text": "hello"}})
		if res.Status != plugin.StatusOK {
			t.Fatalf("append %d: %+v", i, res)
		}
	}
	res := c.Invoke(CapSearch, pc, map[string]any{"resource": "said:words", "aggregate_id": "me", "text": "absent"})
	var p struct {
		Events  []any `json:"events"`
		HasMore bool  `json:"has_more"`
		Next    int64 `json:"next_after_version"`
	}
	if res.Status != plugin.StatusOK || json.Unmarshal(res.Output, &p) != nil {
		t.Fatalf("search: %+v", res)
	}
	if len(p.Events) != 0 || !p.HasMore || p.Next != 4 {
		t.Errorf("a search reads 2 pages of 2 and stops at version 4 with more to read: %+v", p)
	}
}
