package journal

import (
	"context"
	"fmt"
	"testing"
)

// StepsAt reads exactly the steps at the addresses named, in batches past
// SQLite's parameter bound, and nothing of another run.
func TestStepsAtReadsOnlyTheAddressesNamed(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	newRun(t, j, "run_1")
	newRun(t, j, "run_2")
	var want []string
	for i := 0; i < 1200; i++ {
		addr := fmt.Sprintf("loop/%d", i)
		if err := j.RecordStep(ctx, &Step{RunID: "run_1", Address: addr, StepID: "loop", Status: "success", Output: []byte(fmt.Sprintf(`{"i":%d}`, i))}); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			want = append(want, addr)
		}
	}
	if err := j.RecordStep(ctx, &Step{RunID: "run_2", Address: "loop/0", StepID: "loop", Status: "failed", Error: []byte(`{"code":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := j.StepsAt(ctx, "run_1", append(want, "loop/99999"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || string(got["loop/1198"].Output) != `{"i":1198}` || got["loop/0"].Status != "success" {
		t.Fatalf("read %d steps; loop/1198 %+v", len(got), got["loop/1198"])
	}
	if _, ok := got["loop/1"]; ok {
		t.Fatal("a step not named was read")
	}
}
