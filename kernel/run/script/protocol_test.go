package script

import (
	"encoding/json"
	"testing"
)

// TestAnswerStatusesAreKnown holds Known to the listed statuses: each
// listed one is read, and anything else (a misspelling, another case, a
// request kind, nothing) is refused as an unreadable answer.
func TestAnswerStatusesAreKnown(t *testing.T) {
	for _, s := range []AnswerStatus{AnswerDone, AnswerSuspended, AnswerReplayNeeded, AnswerPart} {
		if !s.Known() {
			t.Errorf("%q is listed and not known", s)
		}
	}
	for _, s := range []AnswerStatus{"", "Done", "pending", "replay", AnswerStatus(KindCall)} {
		if s.Known() {
			t.Errorf("%q is known and not listed", s)
		}
	}
}

// TestAnswerReadsTheWire reads a worker's suspended answer as the wire
// spells it, into the typed status and request kinds.
func TestAnswerReadsTheWire(t *testing.T) {
	var a Answer
	raw := `{"status":"suspended","pending":[{"index":0,"kind":"call","tool":"fs.read"},{"index":1,"kind":"read"},{"index":2,"kind":"wait","until":5}]}`
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		t.Fatal(err)
	}
	if a.Status != AnswerSuspended || len(a.Pending) != 3 ||
		a.Pending[0].Kind != KindCall || a.Pending[1].Kind != KindRead || a.Pending[2].Kind != KindWait {
		t.Fatalf("read %+v", a)
	}
}
