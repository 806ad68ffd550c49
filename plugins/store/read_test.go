package store

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/plugin/plugintest"
)

func sqliteContext(t *testing.T) plugin.Context {
	t.Helper()
	b, err := json.Marshal(map[string]any{"package": "p", "data_source": map[string]any{
		"ref": "local://board", "adapter": AdapterSQLite, "database_path": filepath.Join(t.TempDir(), "store.sqlite"), "default": true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return plugin.Context{RunID: "r", CallID: "c", Binding: b}
}

// Issue 10 item 11: a tail says whether older events exist, and an
// explicit limit of 0 is refused, typed, rather than read as the default.
func TestTailHasMoreAndZeroLimit(t *testing.T) {
	c := plugintest.Serve(t, New())
	pc := sqliteContext(t)
	for i := range 3 {
		v := int64(i)
		res := c.Invoke(CapAppend, pc, map[string]any{"resource": "board", "aggregate_id": "a", "expected_version": v,
			"idempotency_key": fmt.Sprintf("k%d", i), "event": map[string]any{"type": "moved", "n": i}})
		if res.Status != plugin.StatusOK {
			t.Fatalf("append %d: %+v", i, res)
		}
	}
	read := func(input map[string]any) (*plugin.Result, map[string]any) {
		t.Helper()
		input["resource"], input["aggregate_id"] = "board", "a"
		res := c.Invoke(CapRead, pc, input)
		var page map[string]any
		if res.Status == plugin.StatusOK {
			if err := json.Unmarshal(res.Output, &page); err != nil {
				t.Fatal(err)
			}
		}
		return res, page
	}
	if _, page := read(map[string]any{"limit": 2}); page["has_more"] != true {
		t.Fatalf("a tail of 2 of 3 events: has_more %v", page["has_more"])
	}
	if _, page := read(map[string]any{"limit": 3}); page["has_more"] != false {
		t.Fatalf("a tail of the whole stream: has_more %v", page["has_more"])
	}
	if _, page := read(map[string]any{}); page["has_more"] != false || len(page["events"].([]any)) != 3 {
		t.Fatalf("no limit reads the default page: %v", page)
	}
	for _, capability := range []string{CapRead, CapList} {
		res := c.Invoke(capability, pc, map[string]any{"resource": "board", "aggregate_id": "a", "limit": 0})
		if res.Status != plugin.StatusRefused || res.Code != "invalid_request" {
			t.Fatalf("%s with limit 0: %+v", capability, res)
		}
	}
}
