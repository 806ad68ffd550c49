package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Option adds an opt-in case to RunPlugin.
type Option func(*suite)

type payloadCase struct {
	capability string
	input      func(string) any
	wantOK     bool
}

type suite struct{ payloads []payloadCase }

// PayloadBytes is the size of the string a Payload case sends.
const PayloadBytes = 64 << 20

// Payload sends a capability an input holding one string of PayloadBytes
// (input builds the input around it). The answer must be typed; with
// wantOK it must be ok, and its output must hold at least PayloadBytes, so
// a 64 MiB answer crosses back too.
func Payload(capability string, input func(payload string) any, wantOK bool) Option {
	return func(s *suite) { s.payloads = append(s.payloads, payloadCase{capability, input, wantOK}) }
}

// plantedSecret is delivered as every credential of every call the suite
// makes; it must never come back in a message, evidence or log.
const plantedSecret = "conformance-planted-credential-8f3a61c2d9"

var codePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// RunPlugin runs the suite against one plugin binary. Each case starts its
// own plugin process.
func RunPlugin(t *testing.T, b Binary, opts ...Option) {
	var s suite
	for _, o := range opts {
		o(&s)
	}
	var info *plugin.Info
	t.Run("Describe", func(t *testing.T) { info = testDescribe(t, b) })
	if info == nil {
		t.Fatal("the plugin does not describe itself; the other cases need its description")
	}
	t.Run("SchemasCompile", func(t *testing.T) { testSchemasCompile(t, info) })
	t.Run("UnknownCapabilityRefused", func(t *testing.T) { testUnknownCapability(t, b, info) })
	t.Run("CancelAnswers", func(t *testing.T) { testCancel(t, b) })
	t.Run("TypedAnswersAndNoSecrets", func(t *testing.T) { testTypedAnswers(t, b, info) })
	for _, p := range s.payloads {
		t.Run("Payload64MiB/"+p.capability, func(t *testing.T) { testPayload(t, b, p) })
	}
	t.Run("CrashFailsTyped", func(t *testing.T) { testCrash(t, b, info) })
}

func testDescribe(t *testing.T, b Binary) *plugin.Info {
	p := launch(t, b)
	info, err := p.client.Describe(context.Background(), "conformance")
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	if err := plugin.CheckInfo(info); err != nil {
		t.Error(err)
	}
	if info.ProtocolVersion != plugin.ProtocolVersion {
		t.Errorf("Describe says protocol v%d, the handshake v%d", info.ProtocolVersion, plugin.ProtocolVersion)
	}
	if info.SDKVersion == "" {
		t.Error("Describe names no SDK version")
	}
	quietStdout(t, p)
	return info
}

func testSchemasCompile(t *testing.T, info *plugin.Info) {
	c := jsonschema.NewCompiler()
	compile := func(name string, raw json.RawMessage) {
		if len(raw) == 0 {
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Errorf("%s is not JSON: %v", name, err)
			return
		}
		url := "conformance:///" + name
		if err := c.AddResource(url, doc); err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		if _, err := c.Compile(url); err != nil {
			t.Errorf("%s does not compile: %v", name, err)
		}
	}
	for _, d := range info.Capabilities {
		compile(d.ID+"/input", d.InputSchema)
		compile(d.ID+"/output", d.OutputSchema)
	}
	for _, a := range info.Adapters {
		compile(a.ID+"/binding", a.BindingSchema)
	}
}

func testUnknownCapability(t *testing.T, b Binary, info *plugin.Info) {
	p := launch(t, b)
	for _, id := range []string{info.Name + ".conformance_no_such_capability", "conformance_other_plugin.read"} {
		res, err := p.client.Invoke(context.Background(), &plugin.Call{Capability: id, Context: callContext("unknown"), Input: []byte(`{}`)}, 0)
		if err != nil {
			t.Fatalf("Invoke %s: %v", id, err)
		}
		if res.Status != plugin.StatusRefused || res.Code != errcode.CapabilityNotFound {
			t.Errorf("Invoke %s answered %s %s, want refused capability_not_found", id, res.Status, res.Code)
		}
	}
	quietStdout(t, p)
}

func testCancel(t *testing.T, b Binary) {
	p := launch(t, b)
	state, err := p.client.Cancel(context.Background(), "conformance-no-such-call")
	if err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	if state != plugin.CancelUnknownRun {
		t.Errorf("Cancel of a call never made answered %q, want %q", state, plugin.CancelUnknownRun)
	}
}

// testTypedAnswers calls every capability with empty and malformed inputs
// under a planted credential: each answer is typed, and the credential is
// in no message, evidence or log line.
func testTypedAnswers(t *testing.T, b Binary, info *plugin.Info) {
	p := launch(t, b)
	inputs := [][]byte{[]byte(`{}`), []byte(`{"conformance_unknown_field":"` + plantedSecret + `-not"}`), []byte(`[]`), []byte(`{"path":7,"argv":"x"}`)}
	for _, d := range info.Capabilities {
		for i, in := range inputs {
			res, err := p.client.Invoke(context.Background(), &plugin.Call{Capability: d.ID, Context: callContext(d.ID), Input: in}, 0)
			if err != nil {
				t.Errorf("%s with input %d: transport failure %v", d.ID, i, err)
				continue
			}
			switch res.Status {
			case plugin.StatusOK:
			case plugin.StatusRefused, plugin.StatusFailed:
				if !codePattern.MatchString(string(res.Code)) || res.Message == "" {
					t.Errorf("%s with input %d: %s without a snake_case code and a message (%q, %q)", d.ID, i, res.Status, res.Code, res.Message)
				}
			default:
				t.Errorf("%s with input %d: status %q is none of ok, refused, failed", d.ID, i, res.Status)
			}
			if leaks(res.Message) || leaks(string(res.Evidence)) {
				t.Errorf("%s with input %d: the answer holds the planted credential", d.ID, i)
			}
		}
	}
	if leaks(p.stderr.String()) {
		t.Error("the plugin's log holds the planted credential")
	}
	quietStdout(t, p)
}

// leaks reports the planted credential, not the decoy input that merely
// starts like it.
func leaks(s string) bool {
	return strings.Contains(strings.ReplaceAll(s, plantedSecret+"-not", ""), plantedSecret)
}

func testPayload(t *testing.T, b Binary, pc payloadCase) {
	p := launch(t, b)
	in, err := json.Marshal(pc.input(strings.Repeat("a", PayloadBytes)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.client.Invoke(context.Background(), &plugin.Call{Capability: pc.capability, Context: callContext("payload"), Input: in}, 0)
	if err != nil {
		t.Fatalf("%d bytes to %s: transport failure %v", len(in), pc.capability, err)
	}
	if res.Status != plugin.StatusOK && !codePattern.MatchString(string(res.Code)) {
		t.Fatalf("%s answered %s without a code", pc.capability, res.Status)
	}
	if pc.wantOK && (res.Status != plugin.StatusOK || len(res.Output) < PayloadBytes) {
		t.Fatalf("%s answered %s %s with %d output bytes, want ok with at least %d", pc.capability, res.Status, res.Code, len(res.Output), PayloadBytes)
	}
	quietStdout(t, p)
}

// testCrash kills the plugin process: the next call must fail with a gRPC
// status at once (the host maps it to its typed crash code), never hang.
func testCrash(t *testing.T, b Binary, info *plugin.Info) {
	p := launch(t, b)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := p.client.Invoke(ctx, &plugin.Call{Capability: info.Capabilities[0].ID, Context: callContext("crash"), Input: []byte(`{}`)}, 0)
	if err == nil {
		t.Fatal("a call to a killed plugin answered")
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("a call to a killed plugin hung until the deadline: %v", err)
	}
	if c := status.Code(err); c != codes.Unavailable && c != codes.Canceled {
		t.Fatalf("a call to a killed plugin failed with %v, want gRPC Unavailable", err)
	}
}

func callContext(call string) plugin.Context {
	return plugin.Context{
		RunID: "conformance-run", StepAddress: "conformance", CallID: "conformance-" + call, Attempt: 1,
		Credentials: map[string]string{"password": plantedSecret, "token": plantedSecret, "api_key": plantedSecret},
		Clock:       time.Unix(1_700_000_000, 0).UTC(),
	}
}

// quietStdout asserts that nothing but the handshake reached stdout, on the
// raw descriptor or through os.Stdout.
func quietStdout(t *testing.T, p *started) {
	t.Helper()
	// What os.Stdout forwards over gRPC arrives asynchronously, so a late
	// write may be missed here; the raw descriptor is read directly.
	if s := p.stdout.String(); s != "" {
		t.Errorf("the plugin wrote to stdout after its handshake: %q", truncate(s))
	}
	if s := p.synced.String(); s != "" {
		t.Errorf("the plugin wrote to os.Stdout: %q", truncate(s))
	}
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
