package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
)

func open(t *testing.T) *Journal {
	t.Helper()
	j, err := Open(t.TempDir(), func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func newRun(t *testing.T, j *Journal, id string) {
	t.Helper()
	err := j.CreateRun(context.Background(), &Run{RunID: id, SkillName: "s", Method: "m", PackageDir: "/p",
		PackageDigest: "sha256:p", ClosureDigest: "sha256:c", Authority: json.RawMessage(`{}`), Inputs: json.RawMessage(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunLifecycle(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	newRun(t, j, "run_1")
	if err := j.RecordStep(ctx, &Step{RunID: "run_1", Address: "a", StepID: "a", Status: "success", Output: json.RawMessage(`{"x":1}`), ReceiptID: "sha256:r"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Pause(ctx, "run_1", []*Request{{Address: "b", Kind: "agent", RequestDigest: "sha256:d", Payload: json.RawMessage(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	run, _ := j.GetRun(ctx, "run_1")
	if run.State != StatePaused || run.Version != 2 {
		t.Fatalf("got %+v", run)
	}
	if err := j.Asks().AdmitDecisions(ctx, "run_1", []*Decision{{Address: "b", Lane: "answers", RequestDigest: "sha256:d", Value: json.RawMessage(`{"ok":true}`)}}); err != nil {
		t.Fatal(err)
	}
	decs, _ := j.Asks().Decisions(ctx, "run_1")
	if d := decs["b"]; d == nil || d.Used {
		t.Fatalf("decision not admitted unused: %+v", d)
	}
	if err := j.Asks().UseDecision(ctx, "run_1", "b", &Step{RunID: "run_1", Address: "b", StepID: "b", Status: "success", Output: json.RawMessage(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	decs, _ = j.Asks().Decisions(ctx, "run_1")
	reqs, _ := j.Asks().Requests(ctx, "run_1")
	steps, _ := j.Steps(ctx, "run_1")
	if !decs["b"].Used || reqs[0].State != RequestAnswered || steps["b"] == nil || steps["b"].Seq != 2 {
		t.Fatalf("decision use not recorded: %+v %+v %+v", decs["b"], reqs[0], steps["b"])
	}
	if err := j.Seal(ctx, "run_1", "completed", "", "sha256:root", json.RawMessage(`{"status":"sealed"}`)); err != nil {
		t.Fatal(err)
	}
	run, _ = j.GetRun(ctx, "run_1")
	if run.State != StateSealed || run.ReceiptID != "sha256:root" || string(run.Envelope) != `{"status":"sealed"}` {
		t.Fatalf("got %+v", run)
	}
	all, _ := j.Events(ctx, "run_1", 0)
	after, _ := j.Events(ctx, "run_1", all[2].Seq)
	if len(all) < 6 || len(after) != len(all)-3 || after[0].Seq != all[3].Seq {
		t.Fatalf("events: %d, after cursor %d", len(all), len(after))
	}
}

func TestUnknownRun(t *testing.T) {
	j := open(t)
	_, err := j.GetRun(context.Background(), "run_missing")
	if contract.CodeOf(err) != "run_not_found" {
		t.Fatalf("got %v", err)
	}
	if err := j.RecordStep(context.Background(), &Step{RunID: "run_missing", Address: "a", Status: "success"}); contract.CodeOf(err) != "run_not_found" {
		t.Fatalf("recording on an unknown run: %v", err)
	}
}

func TestOneDriverAtATime(t *testing.T) {
	j := open(t)
	first, err := j.Drive("run_1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Drive("run_1"); contract.CodeOf(err) != "run_driven_elsewhere" {
		t.Fatalf("second driver: %v", err)
	}
	other, err := j.Drive("run_2")
	if err != nil {
		t.Fatalf("another run is independent: %v", err)
	}
	other.Release()
	first.Release()
	again, err := j.Drive("run_1")
	if err != nil {
		t.Fatalf("released run: %v", err)
	}
	again.Release()
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "state.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	db.Exec(`PRAGMA user_version = 99`)
	db.Close()
	if _, err := Open(dir, time.Now); contract.CodeOf(err) != "state_schema_newer" {
		t.Fatalf("got %v", err)
	}
}

// Two calls that read a provider key at the same attempts count can never
// both begin an attempt: the second is told the key is contended, so a
// write under one key leaves once however many callers race for it.
func TestBeginAttemptIsACompareAndSet(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	newRun(t, j, "run_1")
	key := func(addr string) *OperationKey {
		return &OperationKey{ProviderKey: "pk", Operation: "c/op", BodyDigest: "sha256:b", Binding: "sha256:x", RunID: "run_1", Address: addr}
	}
	if err := j.OperationKeys().BeginAttempt(ctx, key("a[0]"), 0); err != nil {
		t.Fatal(err)
	}
	if err := j.OperationKeys().BeginAttempt(ctx, key("a[1]"), 0); !errors.Is(err, ErrKeyContended) {
		t.Fatalf("a second attempt from the same read must be contended, got %v", err)
	}
	row, err := j.OperationKeys().Get(ctx, "pk")
	if err != nil || row == nil || row.Address != "a[0]" || row.Attempts != 1 {
		t.Fatalf("the first attempt holds the key: %+v %v", row, err)
	}
	// A caller that read the current count (after a refusal or a
	// reconciliation) may begin the next attempt.
	if err := j.OperationKeys().Settle(ctx, "run_1", "pk", KeyRefused, nil, ""); err != nil {
		t.Fatal(err)
	}
	if err := j.OperationKeys().BeginAttempt(ctx, key("a[1]"), 1); err != nil {
		t.Fatal(err)
	}
	if row, _ := j.OperationKeys().Get(ctx, "pk"); row.Address != "a[1]" || row.Attempts != 2 || row.State != KeyAttempting {
		t.Fatalf("the next attempt is recorded: %+v", row)
	}
}

// A provider key's custody moves through the typed states as the wire and
// the event stream spell them: each settle reads back as the state it
// wrote and appends operation.<state> on the operations stream.
func TestSettleKeepsEveryKeyState(t *testing.T) {
	ctx := context.Background()
	j := open(t)
	newRun(t, j, "run_1")
	k := &OperationKey{ProviderKey: "pk", Operation: "c/op", BodyDigest: "sha256:b", Binding: "sha256:x", RunID: "run_1", Address: "a"}
	if err := j.OperationKeys().BeginAttempt(ctx, k, 0); err != nil {
		t.Fatal(err)
	}
	want := []string{"operation.attempt"}
	for _, s := range []KeyState{KeyAcknowledged, KeyConfirmed, KeyDone, KeyRefused} {
		if err := j.OperationKeys().Settle(ctx, "run_1", "pk", s, nil, ""); err != nil {
			t.Fatal(err)
		}
		if row, err := j.OperationKeys().Get(ctx, "pk"); err != nil || row.State != s {
			t.Fatalf("settled %s, read %+v %v", s, row, err)
		}
		want = append(want, "operation."+string(s))
	}
	evs, err := j.Events(ctx, "run_1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		if e.Stream == "operations" {
			got = append(got, e.Type)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("operations stream %v, want %v", got, want)
	}
}
