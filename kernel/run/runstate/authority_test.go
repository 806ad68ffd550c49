package runstate

import (
	"reflect"
	"testing"

	"github.com/runxhq/runx/kernel/authority"
)

// TestStandingNames names the standing approvals a floor decision was
// admitted by, by index and kind, and skips an index out of range.
func TestStandingNames(t *testing.T) {
	a := Authority{Standing: []authority.StandingApproval{
		{Edits: &authority.EditsApproval{Paths: []string{"docs"}}},
		{Local: true},
	}}
	got := a.StandingNames([]int{1, 0, 2, -1})
	want := []map[string]any{{"index": 1, "kind": authority.StandingLocal}, {"index": 0, "kind": authority.StandingEdits}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := (Authority{}).StandingNames(nil); got == nil || len(got) != 0 {
		t.Fatalf("no standing approvals named: got %#v, want an empty list", got)
	}
}
