package process

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// TestCommandIsFollowedAsAProcess: a command.execute call is recorded as a
// process of kind command named by its call, its log readable by cursor
// while it runs, and a stop sent to it stops it.
func TestCommandIsFollowedAsAProcess(t *testing.T) {
	e := newProcEnv(t)
	pc := withBinding(commandContext(e.root), CommandBinding{ProjectDir: e.project, Actor: "local"})
	in, _ := json.Marshal(CommandRequest{Argv: []string{"sh", "-c", "echo building; echo warn >&2; sleep 30; echo never"}})
	done := make(chan *plugin.Result, 1)
	go func() {
		done <- NewCommand().Invoke(context.Background(), &plugin.Call{Capability: CommandCapability, Context: pc, Input: in})
	}()
	id := "run-1#build@2"
	var p *Process
	for deadline := time.Now().Add(10 * time.Second); ; {
		if res := e.invoke(ListCapability, ListRequest{}); res.Status == plugin.StatusOK {
			if l := ok[List](t, res); len(l.Processes) == 1 && l.Processes[0].State == StateRunning {
				p = l.Processes[0]
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the command was never recorded as a process")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if p.ProcessID != id || p.Kind != KindCommand || p.Actor != "local" || strings.Join(p.Argv, " ") != "sh -c echo building; echo warn >&2; sleep 30; echo never" {
		t.Fatalf("recorded %+v", p)
	}
	text, _ := e.readUntil(id, "", "building")
	e.readUntil(id, "", "warn")
	if strings.Contains(text, "never") {
		t.Fatalf("log %q", text)
	}
	wantCode(t, e.invoke(WriteCapability, WriteRequest{ProcessID: id, Input: "x"}), errcode.ProcessInputUnsupported)
	stopped := ok[Process](t, e.invoke(StopCapability, IDRequest{ProcessID: id}))
	if stopped.State != StateStopped || stopped.Running {
		t.Fatalf("stopped %+v", stopped)
	}
	select {
	case res := <-done:
		var resp CommandResponse
		if err := json.Unmarshal(res.Output, &resp); err != nil || !resp.Stopped || resp.Stdout != "building\n" || resp.Process.ID != id {
			t.Fatalf("the command answered %+v (%v)", resp, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stopped command kept running")
	}
	// A command that ends by itself is recorded exited with its code.
	pc.CallID, pc.Attempt = "run-1#build@3", 3
	in, _ = json.Marshal(CommandRequest{Argv: []string{"sh", "-c", "echo ok; exit 4"}})
	NewCommand().Invoke(context.Background(), &plugin.Call{Capability: CommandCapability, Context: pc, Input: in})
	out := ok[Output](t, e.invoke(ReadCapability, ReadRequest{ProcessID: "run-1#build@3"}))
	if out.Running || out.State != StateExited || out.ExitCode == nil || *out.ExitCode != 4 || out.Chunks[0].Data != "ok\n" {
		t.Fatalf("read %+v", out)
	}
}
