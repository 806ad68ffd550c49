package runstate

import (
	"strconv"
	"sync"
	"testing"

	"github.com/runxhq/runx/kernel/journal"
)

// TestRecordsReadUnderTheLock reads the settled units and a copy of the
// outputs while a drive writes outputs under the records' lock, as a
// fan-out's items do: the copy is the item's own, and no read races a
// write (go test -race).
func TestRecordsReadUnderTheLock(t *testing.T) {
	r := &Records{Recorded: map[string]*journal.Step{"a[0]": {Address: "a[0]"}}, Outputs: map[string]any{"x": 1}}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r.Lock()
			r.Outputs["s"+strconv.Itoa(i)] = i
			r.Unlock()
		}()
		go func() {
			defer wg.Done()
			if r.RecordedAt("a[0]") == nil || r.RecordedAt("a[1]") != nil {
				t.Error("recorded units misread")
			}
			snap := r.OutputsNow()
			snap["x"] = "changed"
		}()
	}
	wg.Wait()
	if r.Outputs["x"] != 1 || len(r.OutputsNow()) != 9 {
		t.Fatalf("outputs %v", r.Outputs)
	}
}
