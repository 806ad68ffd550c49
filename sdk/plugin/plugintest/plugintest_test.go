package plugintest_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/plugin/plugintest"
)

// notes is a small plugin of the shape an author writes: a read that waits
// to be cancelled, a write that previews and recovers, a capability that
// panics.
type notes struct{ started chan struct{} }

func (notes) Info() plugin.Info {
	return plugin.Info{Name: "notes", Version: "1.2.3", Capabilities: []plugin.Definition{
		{ID: "notes.wait", Effect: plugin.EffectRead, Approval: plugin.ApprovalNone},
		{ID: "notes.echo", Effect: plugin.EffectNone, Approval: plugin.ApprovalNone},
		{ID: "notes.put", Effect: plugin.EffectWrite, Approval: plugin.ApprovalNone, Previews: true, Recovers: true,
			PathInputs: []plugin.PathInput{{Pointer: "/path", Role: plugin.PathWrite}}},
		{ID: "notes.boom", Effect: plugin.EffectNone, Approval: plugin.ApprovalNone},
	}}
}

func (n notes) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	switch call.Capability {
	case "notes.wait":
		close(n.started)
		<-ctx.Done()
		return plugin.Failed("notes_cancelled", "cancelled")
	case "notes.echo":
		return plugin.OK(call.Input, nil)
	case "notes.boom":
		panic("boom")
	}
	return plugin.OK([]byte(`{}`), nil)
}

func (notes) Preview(_ context.Context, call *plugin.Call) *plugin.Result {
	var in struct{ Path string }
	if err := json.Unmarshal(call.Input, &in); err != nil || in.Path == "" {
		return plugin.Refused("notes_request_invalid", "notes.put takes a path")
	}
	out, _ := json.Marshal(plugin.ChangeSet{Schema: plugin.ChangeSetSchema, Changes: []plugin.Change{
		{Path: in.Path, Op: plugin.ChangeCreate, AfterDigest: "sha256:" + strings.Repeat("0", 64), Diff: "+note\n"},
	}})
	return plugin.OK(out, nil)
}

func (notes) Recover(_ context.Context, call *plugin.Call) *plugin.Result {
	out, _ := json.Marshal(map[string]string{"run_id": call.Context.RunID})
	return plugin.OK(out, nil)
}

// bare implements neither Previewer nor Recoverer, as a plugin built
// before those RPCs existed.
type bare struct{}

func (bare) Info() plugin.Info {
	return plugin.Info{Name: "bare", Version: "0.1.0", Capabilities: []plugin.Definition{{ID: "bare.put", Effect: plugin.EffectWrite, Approval: plugin.ApprovalNone}}}
}

func (bare) Invoke(context.Context, *plugin.Call) *plugin.Result { return plugin.OK([]byte(`{}`), nil) }

func TestDescribeCrossesTheWire(t *testing.T) {
	info := plugintest.Serve(t, notes{}).Describe()
	put := info.Find("notes.put")
	if info.Name != "notes" || info.Version != "1.2.3" || info.SDKVersion != plugin.Version || info.ProtocolVersion != plugin.ProtocolVersion ||
		put == nil || !put.Previews || !put.Recovers || len(put.PathInputs) != 1 || put.PathInputs[0].Pointer != "/path" {
		t.Fatalf("got %+v", info)
	}
	if v := plugintest.Serve(t, notes{}, plugintest.WithProtocolVersion(2)).Describe().ProtocolVersion; v != 2 {
		t.Fatalf("WithProtocolVersion(2) described v%d", v)
	}
}

func TestInvokeStreamsLargePayloadsAndRefusesUnknownCapabilities(t *testing.T) {
	c := plugintest.Serve(t, notes{})
	// Several 2 MiB frames each way.
	big := []byte(`"` + strings.Repeat("x", 9<<20) + `"`)
	res := c.Invoke("notes.echo", plugin.Context{CallID: "c1"}, big)
	if res.Status != plugin.StatusOK || string(res.Output) != string(big) {
		t.Fatalf("round trip of %d bytes: %s %s, %d bytes back", len(big), res.Status, res.Code, len(res.Output))
	}
	if res := c.Invoke("notes.nope", plugin.Context{}, map[string]any{}); res.Status != plugin.StatusRefused || res.Code != "capability_not_found" {
		t.Fatalf("unknown capability: %+v", res)
	}
	if res := c.Invoke("notes.boom", plugin.Context{}, map[string]any{}); res.Status != plugin.StatusFailed || res.Code != "plugin_panicked" || !res.DiscardWorker {
		t.Fatalf("panic: %+v", res)
	}
}

func TestCancelStopsARead(t *testing.T) {
	n := notes{started: make(chan struct{})}
	c := plugintest.Serve(t, n)
	done := make(chan *plugin.Result, 1)
	go func() {
		res, err := c.Client.Invoke(context.Background(), &plugin.Call{Capability: "notes.wait", Context: plugin.Context{CallID: "w1"}, Input: []byte(`{}`)}, 0)
		if err != nil {
			res = plugin.Failed("transport", err.Error())
		}
		done <- res
	}()
	<-n.started
	if state := c.Cancel("w1"); state != plugin.CancelCancelled {
		t.Fatalf("cancel answered %s", state)
	}
	if res := <-done; res.Code != "notes_cancelled" {
		t.Fatalf("the read ended %+v", res)
	}
	if state := c.Cancel("w1"); state != plugin.CancelUnknownRun {
		t.Fatalf("a finished call's cancel answered %s", state)
	}
}

func TestPreviewAndRecoverRoundTrip(t *testing.T) {
	c := plugintest.Serve(t, notes{})
	res, err := c.Preview("notes.put", plugin.Context{CallID: "p1"}, map[string]string{"path": "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	cs := plugintest.ChangeSet(t, res)
	if len(cs.Changes) != 1 || cs.Changes[0].Path != "a.txt" || cs.Changes[0].Op != plugin.ChangeCreate || cs.Changes[0].Diff != "+note\n" {
		t.Fatalf("got %+v", cs)
	}
	if res, _ := c.Preview("notes.put", plugin.Context{}, map[string]string{}); res.Code != "notes_request_invalid" {
		t.Fatalf("a preview's refusal: %+v", res)
	}
	// A capability that does not declare previews is refused, typed.
	if res, err := c.Preview("notes.echo", plugin.Context{}, map[string]string{}); err != nil || res.Code != "preview_unsupported" {
		t.Fatalf("preview of notes.echo: %+v %v", res, err)
	}
	res, err = c.Recover("notes.put", plugin.Context{RunID: "run-7"})
	if err != nil || res.Status != plugin.StatusOK || string(res.Output) != `{"run_id":"run-7"}` {
		t.Fatalf("recover: %+v %v", res, err)
	}
	if res, err := c.Recover("notes.echo", plugin.Context{RunID: "run-7"}); err != nil || res.Code != "recover_unsupported" {
		t.Fatalf("recover of notes.echo: %+v %v", res, err)
	}
}

func TestAPluginWithoutTheOptionalRPCsAnswersNotImplemented(t *testing.T) {
	c := plugintest.Serve(t, bare{})
	if _, err := c.Preview("bare.put", plugin.Context{}, map[string]any{}); !errors.Is(err, plugin.ErrNotImplemented) {
		t.Fatalf("preview: %v", err)
	}
	if _, err := c.Recover("bare.put", plugin.Context{RunID: "r"}); !errors.Is(err, plugin.ErrNotImplemented) {
		t.Fatalf("recover: %v", err)
	}
	// And it keeps working: old plugins are unaffected by the additions.
	if res := c.Invoke("bare.put", plugin.Context{}, map[string]any{}); res.Status != plugin.StatusOK {
		t.Fatalf("%+v", res)
	}
	if d := c.Describe().Find("bare.put"); d.Previews || d.Recovers || d.PathInputs != nil || d.Roles != nil {
		t.Fatalf("an old plugin's definition gained fields: %+v", d)
	}
}
