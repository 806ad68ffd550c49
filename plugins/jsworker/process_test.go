package jsworker

import (
	"testing"
	"time"
)

// The kernel reads Info of its first-party plugins in its own process: doing
// so must not change that process's time zone. Only serving sets UTC.
func TestDescribingTheWorkerLeavesTheProcessAlone(t *testing.T) {
	saved := time.Local
	t.Cleanup(func() { time.Local = saved })
	zone := time.FixedZone("test", 5*3600)
	time.Local = zone
	_ = New().Info()
	if time.Local != zone {
		t.Fatalf("New().Info() changed time.Local to %v", time.Local)
	}
	New().SetupProcess()
	if time.Local != time.UTC {
		t.Fatalf("SetupProcess left time.Local %v, want UTC", time.Local)
	}
}
