package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// The bytes a tree's plugins answered are kept at each checkpoint of its
// root (a pause, a stop), and read back as the latest count: a pause that
// keeps none (a child's, a turn's repause) never resets it.
func TestAnsweredBytesKeptAcrossCheckpoints(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	newRun(t, j, "run_1")
	n, err := j.AnsweredBytes(ctx, "run_1")
	if err != nil || n != 0 {
		t.Fatalf("a new run kept nothing: %d %v", n, err)
	}
	steps := []func() error{
		func() error { return j.PauseRoot(ctx, "run_1", nil, 700) },
		func() error { return j.SetRunning(ctx, "run_1") },
		func() error { return j.Stop(ctx, "run_1", 900) },
		func() error { return j.Pause(ctx, "run_1", nil) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("checkpoint %d: %v", i, err)
		}
	}
	if n, err := j.AnsweredBytes(ctx, "run_1"); err != nil || n != 900 {
		t.Fatalf("want the latest count 900, got %d %v", n, err)
	}
}

// Every unit a run of the tree records keeps the tree's count in its step
// event, a batch its largest, so the count survives a crash between
// checkpoints (less the units in flight); a child's units count for its
// root, another tree's do not, and a count the scrubber rewrote is passed
// over.
func TestAnsweredBytesKeptInStepRecords(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	newRun(t, j, "root")
	newRun(t, j, "other")
	if err := j.CreateRun(ctx, &Run{RunID: "child", ParentRunID: "root", ParentAddress: "sub", SkillName: "s", Method: "m", PackageDir: "/p",
		PackageDigest: "sha256:p", ClosureDigest: "sha256:c", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	want := func(n int64) {
		t.Helper()
		if got, err := j.AnsweredBytes(ctx, "root"); err != nil || got != n {
			t.Fatalf("want %d answered, got %d %v", n, got, err)
		}
	}
	if err := j.PauseRoot(ctx, "root", nil, 100); err != nil {
		t.Fatal(err)
	}
	if err := j.SetRunning(ctx, "root"); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordStep(ctx, &Step{RunID: "root", Address: "a", StepID: "a", Status: "success", Answered: 300}); err != nil {
		t.Fatal(err)
	}
	want(300)
	if err := j.RecordSteps(ctx, []*Step{{RunID: "root", Address: "f/0", StepID: "f", Status: "success", Answered: 450}, {RunID: "root", Address: "f/1", StepID: "f", Status: "success", Answered: 400}}); err != nil {
		t.Fatal(err)
	}
	want(450)
	if err := j.RecordStep(ctx, &Step{RunID: "child", Address: "c", StepID: "c", Status: "success", Answered: 700}); err != nil {
		t.Fatal(err)
	}
	want(700)
	if err := j.RecordStep(ctx, &Step{RunID: "other", Address: "o", StepID: "o", Status: "success", Answered: 9000}); err != nil {
		t.Fatal(err)
	}
	want(700)
	j.Scrub = func(doc []byte) []byte { return bytes.ReplaceAll(doc, []byte("800"), []byte(`"[scrubbed]"`)) }
	if err := j.RecordStep(ctx, &Step{RunID: "root", Address: "b", StepID: "b", Status: "success", Answered: 800}); err != nil {
		t.Fatal(err)
	}
	want(700)
	if steps, err := j.Steps(ctx, "root"); err != nil || steps["a"].Answered != 0 {
		t.Fatalf("the count is kept in the event, never read back into a step: %+v %v", steps["a"], err)
	}
}
