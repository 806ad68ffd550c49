package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/pluginhost"
)

// The test binary doubles as first-party plugins: started with
// "plugin serve <name>" it serves instead of running tests.
func TestMain(m *testing.M) {
	if code, ok := LaunchMode(os.Args); ok {
		os.Exit(code)
	}
	if len(os.Args) == 4 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		switch os.Args[3] {
		case "testcap":
			sdk.Serve(testcap{})
		case "testv2":
			sdk.Serve(testcap{}, sdk.WithProtocolVersion(2))
		case "testold":
			sdk.Serve(oldcap{})
		case "testbad":
			sdk.Serve(badcap{name: "testbad"})
		case "testalias":
			sdk.Serve(badcap{name: "someoneelse"})
		case "testslow":
			// Leaves its pid in a marker in its TMPDIR (the readiness
			// signal a test waits on), then never makes its handshake.
			_ = os.WriteFile(filepath.Join(os.TempDir(), "testslow-starting"), []byte(strconv.Itoa(os.Getpid())), 0o644)
			select {}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type testcap struct{}

func (testcap) Info() sdk.Info {
	def := func(id, effect string) sdk.Definition {
		return sdk.Definition{ID: id, Summary: id, Effect: effect, Approval: sdk.ApprovalNone}
	}
	return sdk.Info{Name: "testcap", Version: "0.0.1", Capabilities: []sdk.Definition{
		def("testcap.echo", sdk.EffectNone),
		def("testcap.pid", sdk.EffectNone),
		def("testcap.env", sdk.EffectNone),
		def("testcap.hang", sdk.EffectRead),
		def("testcap.crash", sdk.EffectNone),
		def("testcap.panic", sdk.EffectNone),
		def("testcap.refuse", sdk.EffectNone),
		typed("testcap.typed"),
		typed("testcap.badout"),
	}}
}

// typed declares schemas: an object with a string message in, the same out.
func typed(id string) sdk.Definition {
	return sdk.Definition{ID: id, Summary: id, Effect: sdk.EffectNone, Approval: sdk.ApprovalNone, Roles: []string{sdk.RoleModule},
		InputSchema:  json.RawMessage(`{"type":"object","required":["message"],"properties":{"message":{"type":"string"},"items":{"type":"array","items":{"type":"integer"}}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["message"],"properties":{"message":{"type":"string"}}}`)}
}

func (testcap) Invoke(ctx context.Context, call *sdk.Call) *sdk.Result {
	switch call.Capability {
	case "testcap.echo":
		return sdk.OK(call.Input, nil)
	case "testcap.pid":
		return sdk.OK([]byte(fmt.Sprintf(`{"pid":%d}`, os.Getpid())), nil)
	case "testcap.env":
		out, _ := json.Marshal(os.Environ())
		return sdk.OK(out, nil)
	case "testcap.hang":
		<-ctx.Done()
		return sdk.Failed("cancelled", "the call was cancelled")
	case "testcap.typed":
		return sdk.OK(call.Input, nil)
	case "testcap.badout":
		return sdk.OK([]byte(`{"message":7}`), nil)
	case "testcap.crash":
		os.Exit(3)
	case "testcap.panic":
		panic("boom")
	}
	return sdk.Refused("nope", "refused on purpose")
}

func newTestSupervisor(t testing.TB) *Supervisor {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := NewSupervisor(Config{
		Discovery: &Discovery{
			Self:       self,
			FirstParty: map[string]bool{"testcap": true, "testv2": true, "testbad": true, "testalias": true, "testslow": true},
			ProjectDir: dir + "/.runx",
			HomeDir:    dir + "/home",
		},
		RunxVersion: "0.1.0-test",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func call(capability string, input string) *sdk.Call {
	return &sdk.Call{Capability: capability, Context: sdk.Context{RunID: "run_test", CallID: capability + "-1"}, Input: []byte(input)}
}

func pidOf(t *testing.T, s *Supervisor) int {
	t.Helper()
	res, _, err := s.Invoke(context.Background(), call("testcap.pid", `{}`), 0)
	if err != nil {
		t.Fatalf("pid call: %v", err)
	}
	var out struct{ Pid int }
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	return out.Pid
}

func hostCode(t *testing.T, err error) string {
	t.Helper()
	he, ok := err.(*Error)
	if !ok {
		t.Fatalf("want *host.Error, got %T: %v", err, err)
	}
	return string(he.Code)
}

func TestPluginRunsInItsOwnProcessAndIsReused(t *testing.T) {
	s := newTestSupervisor(t)
	first := pidOf(t, s)
	if first == 0 || first == os.Getpid() {
		t.Fatalf("plugin pid %d must differ from the kernel's %d", first, os.Getpid())
	}
	if again := pidOf(t, s); again != first {
		t.Fatalf("warm call started a new process: %d then %d", first, again)
	}
	if s.Pid("testcap") != first {
		t.Fatalf("Pid() = %d, want %d", s.Pid("testcap"), first)
	}
}

func TestLargePayloadRoundTrips(t *testing.T) {
	s := newTestSupervisor(t)
	payload := `"` + strings.Repeat("abcdefgh", 8<<20) + `"` // 64 MiB + quotes
	res, _, err := s.Invoke(context.Background(), call("testcap.echo", payload), 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Output) != payload {
		t.Fatalf("64 MiB payload did not round-trip: got %d bytes", len(res.Output))
	}
	if _, _, err := s.Invoke(context.Background(), call("testcap.echo", payload), 1<<20); hostCode(t, err) != "plugin_output_too_large" {
		t.Fatalf("want %s, got %v", errcode.PluginOutputTooLarge, err)
	}
}

func TestCrashFailsTheCallAndTheNextCallSucceeds(t *testing.T) {
	s := newTestSupervisor(t)
	before := pidOf(t, s)
	_, _, err := s.Invoke(context.Background(), call("testcap.crash", `{}`), 0)
	if code := hostCode(t, err); code != "plugin_crashed" {
		t.Fatalf("want %s, got %s (%v)", errcode.PluginCrashed, code, err)
	}
	if after := pidOf(t, s); after == before {
		t.Fatalf("crashed plugin was reused (pid %d)", after)
	}
}

func TestKilledMidCallFailsTypedAndRecovers(t *testing.T) {
	s := newTestSupervisor(t)
	pid := pidOf(t, s)
	done := make(chan error, 1)
	go func() {
		_, _, err := s.Invoke(context.Background(), call("testcap.hang", `{}`), 0)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	proc, _ := os.FindProcess(pid)
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if code := hostCode(t, err); code != "plugin_crashed" {
			t.Fatalf("want %s, got %s (%v)", errcode.PluginCrashed, code, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("call did not fail after its plugin was killed")
	}
	if after := pidOf(t, s); after == pid {
		t.Fatal("dead plugin reused")
	}
}

func TestDeadlineStopsAHungPlugin(t *testing.T) {
	s := newTestSupervisor(t)
	// The plugin is started first, so the deadline below bounds the hung
	// call alone; a slow start (under -race, on a loaded machine) would
	// otherwise spend it and fail plugin_start_failed instead.
	before := pidOf(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// testcap.hang honours its own ctx, so give the plugin no deadline: the
	// host's deadline alone must stop the call.
	c := call("testcap.hang", `{}`)
	_, _, err := s.Invoke(ctx, c, 0)
	if code := hostCode(t, err); code != "plugin_timeout" {
		t.Fatalf("want %s, got %s", errcode.PluginTimeout, code)
	}
	if after := pidOf(t, s); after == before {
		t.Fatal("the plugin that hung past its deadline was reused")
	}
}

func TestCancelStopsAReadInFlight(t *testing.T) {
	s := newTestSupervisor(t)
	pidOf(t, s)
	done := make(chan *sdk.Result, 1)
	go func() {
		res, _, _ := s.Invoke(context.Background(), call("testcap.hang", `{}`), 0)
		done <- res
	}()
	time.Sleep(100 * time.Millisecond)
	state, err := s.Cancel(context.Background(), "testcap.hang", "testcap.hang-1")
	if err != nil || state != sdk.CancelCancelled {
		t.Fatalf("cancel: %q %v", state, err)
	}
	select {
	case res := <-done:
		if res == nil || res.Status != sdk.StatusFailed {
			t.Fatalf("cancelled read should fail, got %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not return")
	}
}

func TestPanicBecomesTypedFailureAndDiscardsWorker(t *testing.T) {
	s := newTestSupervisor(t)
	before := pidOf(t, s)
	res, _, err := s.Invoke(context.Background(), call("testcap.panic", `{}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sdk.StatusFailed || res.Code != "plugin_panicked" || !res.DiscardWorker {
		t.Fatalf("got %+v", res)
	}
	if pidOf(t, s) == before {
		t.Fatal("panicked worker reused")
	}
}

func TestUnsupportedProtocolIsRefusedByName(t *testing.T) {
	s := newTestSupervisor(t)
	_, _, err := s.Describe(context.Background(), "testv2")
	if code := hostCode(t, err); code != "plugin_protocol_unsupported" {
		t.Fatalf("want %s, got %s (%v)", errcode.PluginProtocolUnsupported, code, err)
	}
	if !strings.Contains(err.Error(), "testv2") || !strings.Contains(err.Error(), "runx.plugin.v2") {
		t.Fatalf("refusal must name the plugin and the version it speaks: %v", err)
	}
	// The version comes from go-plugin's negotiation, typed, not from the
	// text of its error.
	var pe *pluginhost.ProtocolError
	if !errors.As(err, &pe) || pe.Version != 2 || pe.Supported != sdk.ProtocolVersion {
		t.Fatalf("want a *pluginhost.ProtocolError for v2, got %#v", err)
	}
}

func TestUnknownCapabilityIsRefused(t *testing.T) {
	s := newTestSupervisor(t)
	if _, _, err := s.Definition(context.Background(), "testcap.missing"); hostCode(t, err) != "capability_not_found" {
		t.Fatalf("want %s, got %v", errcode.CapabilityNotFound, err)
	}
	res, _, err := s.Invoke(context.Background(), call("testcap.missing", `{}`), 0)
	if err != nil || res.Status != sdk.StatusRefused || res.Code != errcode.CapabilityNotFound {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestPluginGetsNoHostEnvironment(t *testing.T) {
	t.Setenv("RUNX_TEST_SECRET", "hunter2")
	s := newTestSupervisor(t)
	res, _, err := s.Invoke(context.Background(), call("testcap.env", `{}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	if err := json.Unmarshal(res.Output, &env); err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		name := kv[:strings.IndexByte(kv, '=')]
		allowed := name == "PLUGIN_UNIX_SOCKET_DIR" || strings.HasPrefix(name, "PLUGIN_") || name == sdk.Handshake.MagicCookieKey
		for _, a := range envAllowlist {
			allowed = allowed || name == a
		}
		if !allowed {
			t.Errorf("plugin received host variable %s", name)
		}
	}
}
