package mcp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	kmcp "github.com/runxhq/runx/kernel/mcp"
	"github.com/runxhq/runx/kernel/run"
)

// A client's notifications/cancelled stops the driver as SIGTERM does: the
// command in flight is terminated and recorded with decision stopped, no
// further step is admitted, and the run stays where it stopped for its next
// driver, which waits at the stopped step's retry and runs it again on a
// person's yes.
func TestCancelledStopsDriverGracefully(t *testing.T) {
	ws := t.TempDir()
	k := openKernel(t, ws)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("slow")}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"dir": ws}})
		done <- err
	}()
	count := filepath.Join(ws, "count")
	// Step one has written its line (the file exists a moment before:
	// the shell creates it, then writes), so it is in flight, not starting.
	waitFor(t, func() bool { raw, _ := os.ReadFile(count); return string(raw) == "one\n" })
	cancel() // the go-sdk client sends notifications/cancelled
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("call = %v, want it cancelled", err)
	}
	var runID string
	waitFor(t, func() bool {
		id, ok := onlyRun(t, k)
		if !ok {
			return false
		}
		runID = id
		read, err := k.ReadRun(context.Background(), id, "")
		return err == nil && read.State == "stopped" && !read.Driven
	})
	read, _ := k.ReadRun(context.Background(), runID, "")
	stopped := false
	for _, ev := range read.Events["steps"] {
		stopped = stopped || ev.Type == run.EventStepStopped && strings.Contains(string(ev.Data), `"decision":"stopped"`)
	}
	if len(read.Steps) != 0 || !stopped {
		t.Fatalf("want step one stopped, unsettled, and the run resumable, got %+v %v", read.Steps, read.Events)
	}
	// The stopped command may have acted: the next driver waits at its
	// retry, and runs it again on a person's yes.
	env, err := k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: []byte("{}")})
	if err != nil || len(env.Requests) != 1 || env.Requests[0].Address != "one/retry" {
		t.Fatalf("resume = %+v %v", env, err)
	}
	yes := `{"approvals":{"one/retry":{"request_digest":"` + env.Requests[0].RequestDigest + `","value":{"retry":true}}}}`
	env, err = k.Resume(context.Background(), run.ResumeRequest{RunID: runID, Document: []byte(yes)})
	if err != nil || env.Outcome != "completed" {
		t.Fatalf("resume = %+v %v", env, err)
	}
	if got, _ := os.ReadFile(count); string(got) != "one\none\ntwo\n" {
		t.Errorf("the stopped step runs again on a yes, then step two once: %q", got)
	}
}

// onlyRun finds the one root run the workspace's journal holds.
func onlyRun(t *testing.T, k *run.Kernel) (string, bool) {
	t.Helper()
	roots, err := k.JournalForTest().Children(context.Background(), "")
	if err != nil || len(roots) != 1 {
		return "", false
	}
	return roots[0].RunID, true
}

// waitFor polls a readiness condition the test cannot be signalled on.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProgressNotifications(t *testing.T) {
	k := openKernel(t, "")
	var mu sync.Mutex
	var got []string
	arrived := make(chan struct{}, 8)
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("echo")}}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Message)
			mu.Unlock()
			arrived <- struct{}{}
		},
	})
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}
	params.SetProgressToken("tok-1")
	if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
		t.Fatalf("call = %v %v", res, err)
	}
	for i := 0; i < 2; i++ {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatalf("progress = %v, want two notifications", got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got[0] != "step started echo" || got[1] != "step sealed echo (success)" {
		t.Errorf("progress = %q", got)
	}
	// without a token nothing is sent
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}); err != nil || res.IsError {
		t.Fatal(err)
	}
	select {
	case <-arrived:
		t.Errorf("progress sent without a token: %v", got)
	default:
	}
}

// One kernel serves the session, so one worker process serves every call.
func TestOneWorkerForTheSession(t *testing.T) {
	k := openKernel(t, "")
	cs := connect(t, k, kmcp.Options{Refs: []string{testdata("echo")}}, nil)
	pid := 0
	for i := 0; i < 5; i++ {
		if res, _ := call(t, cs, "echo", map[string]any{"message": "hi"}); res.IsError {
			t.Fatal(textOf(res))
		}
		p := k.PluginPidForTest("js")
		if p == 0 || (pid != 0 && p != pid) {
			t.Fatalf("call %d ran in worker %d, earlier calls in %d", i, p, pid)
		}
		pid = p
	}
}
