package run

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/plugin/plugintest"
)

// Stub plugins for the engine's conformance tests, served in process over
// real gRPC by sdk/plugin/plugintest. No first-party plugin is linked: the
// engine learns every capability from these descriptions alone.

// stub serves a tool of each effect, a previewing and recovering write, and
// the module and command roles.
type stub struct {
	mu    sync.Mutex
	calls map[string]int
	// creds is what the last call of each capability was delivered.
	creds map[string]map[string]string
}

func (s *stub) Info() sdk.Info {
	def := func(id, effect string) sdk.Definition {
		return sdk.Definition{ID: id, Summary: id, Effect: effect, Approval: sdk.ApprovalNone}
	}
	write := def("stub.write", sdk.EffectWrite)
	write.PathInputs = []sdk.PathInput{{Pointer: "/files/*/path", Role: sdk.PathWrite}}
	write.Previews, write.Recovers = true, true
	module := def("stub.module", sdk.EffectNone)
	module.Roles = []string{sdk.RoleModule}
	command := def("stub.command", sdk.EffectProcess)
	command.Roles, command.ArgvInput = []string{sdk.RoleCommand}, "/argv"
	flaky := def("stub.flaky", sdk.EffectNone)
	return sdk.Info{Name: "stub", Version: "0.0.1", Capabilities: []sdk.Definition{
		def("stub.echo", sdk.EffectNone), def("stub.read", sdk.EffectRead), def("stub.fail", sdk.EffectNone),
		write, module, command, flaky,
	}, Packets: []sdk.Packet{{ID: "stub.note.v1", Schema: []byte(`{"properties":{"note":{"type":"string"}},"required":["note"],"type":"object"}`)}}}
}

func (s *stub) count(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[id]++
	return s.calls[id]
}

func (s *stub) Invoke(_ context.Context, call *sdk.Call) *sdk.Result {
	n := s.count(call.Capability)
	switch call.Capability {
	case "stub.echo", "stub.read":
		return sdk.OK(call.Input, nil)
	case "stub.fail":
		return sdk.Failed("stub_failed", "failed on purpose")
	case "stub.flaky":
		if n < 2 {
			return sdk.Failed("stub_flaky", "fails on its first attempt")
		}
		return sdk.OK([]byte(`{"attempt":`+fmt.Sprint(n)+`}`), nil)
	case "stub.write":
		var b struct {
			LockToken string `json:"lock_token"`
		}
		_ = json.Unmarshal(call.Context.Binding, &b)
		out, _ := json.Marshal(map[string]any{"written": true, "exclusive": b.LockToken != ""})
		return sdk.OK(out, nil)
	case "stub.module":
		var in struct {
			Input map[string]any `json:"input"`
		}
		_ = json.Unmarshal(call.Input, &in)
		out, _ := json.Marshal(map[string]any{"module_saw": in.Input})
		return sdk.OK(out, nil)
	case "stub.command":
		var in struct {
			Argv []string `json:"argv"`
		}
		_ = json.Unmarshal(call.Input, &in)
		stdout, _ := json.Marshal(map[string]any{"argv": in.Argv})
		out, _ := json.Marshal(map[string]any{"exit_code": 0, "stdout": string(stdout)})
		return sdk.OK(out, nil)
	}
	return sdk.Refused("capability_not_found", call.Capability)
}

func (s *stub) Preview(_ context.Context, call *sdk.Call) *sdk.Result {
	var in struct {
		Files []struct{ Path, Text string } `json:"files"`
	}
	_ = json.Unmarshal(call.Input, &in)
	cs := sdk.ChangeSet{Schema: sdk.ChangeSetSchema}
	for _, f := range in.Files {
		cs.Changes = append(cs.Changes, sdk.Change{Path: f.Path, Op: sdk.ChangeCreate, AfterDigest: "sha256:x", Diff: "+" + f.Text + "\n"})
	}
	out, _ := json.Marshal(cs)
	return sdk.OK(out, nil)
}

func (s *stub) Recover(_ context.Context, call *sdk.Call) *sdk.Result {
	s.count("recover:" + call.Capability)
	return sdk.OK([]byte(`{}`), nil)
}

// conn is a connector plugin: its operations are reached as
// `operation: conn/<op>`.
type conn struct{ s *stub }

func (conn) Info() sdk.Info {
	return sdk.Info{Name: "conn", Version: "0.0.1", Capabilities: []sdk.Definition{
		{ID: "conn/ping", Summary: "ping", Effect: sdk.EffectRead, Approval: sdk.ApprovalNone},
		{ID: "conn/post", Summary: "post", Effect: sdk.EffectWrite, Approval: sdk.ApprovalNone},
		{ID: "conn/send", Summary: "send", Effect: sdk.EffectWrite, Approval: sdk.ApprovalRequired},
		{ID: "conn/secret", Summary: "secret", Effect: sdk.EffectRead, Approval: sdk.ApprovalNone, Credentials: []string{"CONN_TOKEN"}},
		{ID: "conn/metered", Summary: "metered", Effect: sdk.EffectRead, Approval: sdk.ApprovalNone, Cost: &sdk.Cost{Per: "request", Source: "docs"}},
		{ID: "conn/migrate", Summary: "migrate", Effect: sdk.EffectWrite, Approval: sdk.ApprovalNone, Roles: []string{sdk.RoleDataMigrate}},
	}}
}

func (c conn) Invoke(_ context.Context, call *sdk.Call) *sdk.Result {
	c.s.count(call.Capability)
	c.s.mu.Lock()
	if c.s.creds == nil {
		c.s.creds = map[string]map[string]string{}
	}
	c.s.creds[call.Capability] = call.Context.Credentials
	c.s.mu.Unlock()
	out, _ := json.Marshal(map[string]any{"op": call.Capability, "input": json.RawMessage(call.Input)})
	return sdk.OK(out, nil)
}

// stubHost is the engine's Invoker over in-process plugins: dispatch by the
// capability id's plugin, lookups over their descriptions.
type stubHost struct {
	conns map[string]*plugintest.Conn
	infos map[string]*sdk.Info
}

func newStubHost(t *testing.T, plugins ...sdk.Plugin) *stubHost {
	h := &stubHost{conns: map[string]*plugintest.Conn{}, infos: map[string]*sdk.Info{}}
	for _, p := range plugins {
		c := plugintest.Serve(t, p)
		info := c.Describe()
		h.conns[info.Name], h.infos[info.Name] = c, info
	}
	return h
}

func (h *stubHost) conn(id string) (*plugintest.Conn, host.PluginRef, error) {
	name := host.PluginFor(id)
	c, ok := h.conns[name]
	if !ok {
		return nil, host.PluginRef{}, &host.Error{Code: errcode.PluginNotFound, Message: "no plugin " + name}
	}
	info := h.infos[name]
	return c, host.PluginRef{Name: info.Name, Version: info.Version, Protocol: info.ProtocolVersion}, nil
}

func (h *stubHost) Invoke(ctx context.Context, call *sdk.Call, max int64) (*sdk.Result, host.PluginRef, error) {
	c, ref, err := h.conn(call.Capability)
	if err != nil {
		return nil, ref, err
	}
	res, err := c.Client.Invoke(ctx, call, max)
	return res, ref, err
}

func (h *stubHost) Preview(ctx context.Context, call *sdk.Call, max int64) (*sdk.Result, host.PluginRef, error) {
	c, ref, err := h.conn(call.Capability)
	if err != nil {
		return nil, ref, err
	}
	res, err := c.Client.Preview(ctx, call, max)
	return res, ref, err
}

func (h *stubHost) Recover(ctx context.Context, call *sdk.Call) (*sdk.Result, host.PluginRef, error) {
	c, ref, err := h.conn(call.Capability)
	if err != nil {
		return nil, ref, err
	}
	res, err := c.Client.Recover(ctx, call)
	return res, ref, err
}

func (h *stubHost) Definition(_ context.Context, id string) (*sdk.Definition, host.PluginRef, error) {
	_, ref, err := h.conn(id)
	if err != nil {
		return nil, ref, err
	}
	if def := h.infos[ref.Name].Find(id); def != nil {
		return def, ref, nil
	}
	return nil, ref, &host.Error{Code: errcode.CapabilityNotFound, Message: "no capability " + id}
}

func (h *stubHost) Info(_ context.Context, name string) (*sdk.Info, error) {
	if info, ok := h.infos[name]; ok {
		return info, nil
	}
	return nil, &host.Error{Code: errcode.PluginNotFound, Message: "no plugin " + name}
}

func (h *stubHost) Packet(_ context.Context, id string) (string, *sdk.Packet, error) {
	for n, info := range h.infos {
		for i := range info.Packets {
			if info.Packets[i].ID == id {
				return n, &info.Packets[i], nil
			}
		}
	}
	return "", nil, nil
}

func (h *stubHost) RoleCapability(_ context.Context, role string) (*host.Capability, error) {
	names := make([]string, 0, len(h.infos))
	for n := range h.infos {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for i := range h.infos[n].Capabilities {
			if d := &h.infos[n].Capabilities[i]; d.HasRole(role) {
				return &host.Capability{Plugin: n, Definition: d}, nil
			}
		}
	}
	return nil, &host.Error{Code: errcode.CapabilityRoleUnserved, Message: "no role " + role}
}

func (h *stubHost) Adapter(_ context.Context, id string) (string, *sdk.Adapter, error) {
	return "", nil, &host.Error{Code: errcode.DataAdapterNotFound, Message: "no adapter " + id}
}

// stubKernel opens a real kernel (receipt store, journal, signer) on a
// fresh workspace and points its engine at the in-process stubs.
func stubKernel(t *testing.T) (*Kernel, *stub) {
	t.Helper()
	ws := t.TempDir()
	k, err := Open(context.Background(), Options{
		Workspace: ws, HomeDir: filepath.Join(ws, ".home"), RunxVersion: "0.1.0",
		LookupEnv: func(string) (string, bool) { return "", false },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	s := &stub{calls: map[string]int{}}
	k.engine.Host = newStubHost(t, s, conn{s})
	return k, s
}
