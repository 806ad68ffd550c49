// Package plugintest serves a plugin in process over real gRPC, so its
// author can test Describe, Invoke, Cancel, Preview and Recover exactly as
// a host reaches them (streamed frames, size limits, panics recovered,
// unknown capabilities refused) without building the runx binary or
// starting a process.
//
//	func TestShout(t *testing.T) {
//		c := plugintest.Serve(t, echo{})
//		res := c.Invoke(t, "echo.shout", plugin.Context{CallID: "c1"}, map[string]string{"message": "hi"})
//		...
//	}
//
// The connection is an in-memory listener (grpc's bufconn) carrying the
// same gRPC service, codecs and message caps as a served plugin's Unix
// socket; only go-plugin's process handshake is left out.
package plugintest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/pluginhost"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
)

// bufferBytes is the in-memory connection's buffer: a few frames, so
// streaming back-pressure is exercised as on a socket.
const bufferBytes = 4 << 20

// Conn is a served plugin's host client, with helpers that fail the test on
// a transport error. The embedded *pluginhost.Client is there for anything
// the helpers do not cover (a cancelled context, an output bound).
type Conn struct {
	*pluginhost.Client
	tb testing.TB
}

// Option adjusts Serve.
type Option func(*config)

type config struct{ protocolVersion int }

// WithProtocolVersion serves as plugin.Serve(impl, plugin.WithProtocolVersion(v))
// would, so Describe reports v.
func WithProtocolVersion(v int) Option { return func(c *config) { c.protocolVersion = v } }

// Serve starts impl's Capability service in process and returns a client
// connected to it over gRPC. Both are stopped when the test ends.
func Serve(tb testing.TB, impl plugin.Plugin, opts ...Option) *Conn {
	tb.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	plugin.SetupProcess(impl)
	lis := bufconn.Listen(bufferBytes)
	srv := grpc.NewServer(plugin.ServerOptions()...)
	pluginv1.RegisterCapabilityServer(srv, plugin.NewServer(impl, nil, cfg.protocolVersion))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	dial := append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	}, pluginhost.GRPCDialOptions()...)
	cc, err := grpc.NewClient("passthrough:///plugintest", dial...)
	if err != nil {
		srv.Stop()
		tb.Fatalf("plugintest: dial the in-process plugin: %v", err)
	}
	tb.Cleanup(func() {
		_ = cc.Close()
		srv.Stop()
		<-done
	})
	return &Conn{Client: pluginhost.NewClient(cc), tb: tb}
}

// Describe returns the plugin's Describe answer as a host receives it.
func (c *Conn) Describe() *plugin.Info {
	c.tb.Helper()
	info, err := c.Client.Describe(context.Background(), "plugintest")
	if err != nil {
		c.tb.Fatalf("plugintest: Describe: %v", err)
	}
	return info
}

// Input encodes v as a call's JSON input; a []byte or json.RawMessage is
// taken as it is.
func Input(tb testing.TB, v any) []byte {
	tb.Helper()
	switch b := v.(type) {
	case []byte:
		return b
	case json.RawMessage:
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("plugintest: encode the input: %v", err)
	}
	return b
}

// Invoke calls one capability with input (see Input) and returns its typed
// answer.
func (c *Conn) Invoke(capability string, pc plugin.Context, input any) *plugin.Result {
	c.tb.Helper()
	res, err := c.Client.Invoke(context.Background(), &plugin.Call{Capability: capability, Context: pc, Input: Input(c.tb, input)}, 0)
	if err != nil {
		c.tb.Fatalf("plugintest: Invoke %s: %v", capability, err)
	}
	return res
}

// Preview asks for the change set of one call. err is
// plugin.ErrNotImplemented (errors.Is) when the plugin does not preview;
// any other transport error fails the test.
func (c *Conn) Preview(capability string, pc plugin.Context, input any) (*plugin.Result, error) {
	c.tb.Helper()
	return c.optional(c.Client.Preview(context.Background(), &plugin.Call{Capability: capability, Context: pc, Input: Input(c.tb, input)}, 0))
}

// Recover asks the plugin to settle what a crash left begun under pc's run.
// err is plugin.ErrNotImplemented when the plugin does not recover.
func (c *Conn) Recover(capability string, pc plugin.Context) (*plugin.Result, error) {
	c.tb.Helper()
	return c.optional(c.Client.Recover(context.Background(), &plugin.Call{Capability: capability, Context: pc}))
}

// Cancel cancels one in-flight call by id and returns the state the plugin
// answers (plugin.CancelCancelled, CancelRunsToEnd or CancelUnknownRun).
func (c *Conn) Cancel(callID string) string {
	c.tb.Helper()
	state, err := c.Client.Cancel(context.Background(), callID)
	if err != nil {
		c.tb.Fatalf("plugintest: Cancel %s: %v", callID, err)
	}
	return state
}

// ChangeSet decodes a Preview answer's runx.change_set.v1 document.
func ChangeSet(tb testing.TB, res *plugin.Result) *plugin.ChangeSet {
	tb.Helper()
	if res.Status != plugin.StatusOK {
		tb.Fatalf("plugintest: preview answered %s %s: %s", res.Status, res.Code, res.Message)
	}
	var cs plugin.ChangeSet
	if err := json.Unmarshal(res.Output, &cs); err != nil {
		tb.Fatalf("plugintest: the preview is not a change set: %v", err)
	}
	if cs.Schema != plugin.ChangeSetSchema {
		tb.Fatalf("plugintest: the preview's schema is %q, not %s", cs.Schema, plugin.ChangeSetSchema)
	}
	return &cs
}

func (c *Conn) optional(res *plugin.Result, err error) (*plugin.Result, error) {
	c.tb.Helper()
	if err != nil && !errors.Is(err, plugin.ErrNotImplemented) {
		c.tb.Fatalf("plugintest: %v", err)
	}
	return res, err
}
