package plugin

import (
	"context"
	"errors"
	"os"
	"runtime"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/runxhq/runx/sdk/internal/wire"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc"
)

// ProcessSetup is optional: a plugin that needs process-wide state (a
// time zone, a signal disposition) sets it in SetupProcess, which Serve
// calls once before serving. Constructing a plugin and reading its Info
// must have no such effect: a kernel describes first-party plugins in its
// own process.
type ProcessSetup interface {
	SetupProcess()
}

// SetupProcess runs impl's SetupProcess, if it has one. Serve calls it; an
// in-process harness serving impl should too.
func SetupProcess(impl Plugin) {
	if p, ok := impl.(ProcessSetup); ok {
		p.SetupProcess()
	}
}

// ServeOption adjusts Serve.
type ServeOption func(*serveConfig)

type serveConfig struct {
	protocolVersion int
	logger          hclog.Logger
}

// WithProtocolVersion serves under another wire protocol version, in the
// handshake and in Describe alike. It exists so tests can prove a host
// refuses a version it does not speak.
func WithProtocolVersion(v int) ServeOption {
	return func(c *serveConfig) { c.protocolVersion = v }
}

// ProcessStopper is optional: a plugin that starts processes outside its
// own process group (each in a group of its own, say) kills them in
// StopAll, which Serve calls when the plugin's driver dies, before it kills
// the plugin's own group and exits. StopAll must not wait long: the driver
// is gone and nothing waits for the plugin.
type ProcessStopper interface {
	StopAll()
}

// Serve runs impl as a runx plugin until the kernel stops it. It returns
// once the kernel has shut the plugin down. Stdout belongs to the go-plugin
// handshake; logs go to stderr as JSON, where the kernel re-emits them under
// the plugin's name. On Linux, when the runx that started the plugin dies
// (however it died), the plugin and its process group die with it (see
// ProcessStopper for processes kept outside the group).
func Serve(impl Plugin, opts ...ServeOption) {
	dieWithDriver(impl)
	SetupProcess(impl)
	cfg := serveConfig{protocolVersion: ProtocolVersion}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.logger == nil {
		cfg.logger = hclog.New(&hclog.LoggerOptions{
			Name:       impl.Info().Name,
			Output:     os.Stderr,
			JSONFormat: true,
			Level:      hclog.LevelFromString(os.Getenv("RUNX_LOG")),
		})
	}
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: goplugin.HandshakeConfig{
			ProtocolVersion:  uint(cfg.protocolVersion),
			MagicCookieKey:   Handshake.MagicCookieKey,
			MagicCookieValue: Handshake.MagicCookieValue,
		},
		VersionedPlugins: map[int]goplugin.PluginSet{
			cfg.protocolVersion: {PluginSetKey: &grpcPlugin{impl: impl, logger: cfg.logger, protocolVersion: cfg.protocolVersion}},
		},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, ServerOptions()...)...)
		},
		Logger: cfg.logger,
	})
}

// grpcPlugin adapts a Plugin to go-plugin's GRPCPlugin on both sides.
type grpcPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	impl            Plugin
	logger          hclog.Logger
	protocolVersion int
}

func (p *grpcPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterCapabilityServer(s, NewServer(p.impl, p.logger, p.protocolVersion))
	return nil
}

func (p *grpcPlugin) GRPCClient(context.Context, *goplugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("a plugin serves runx.plugin.v1; the host side is sdk/pluginhost")
}

// ServerOptions are the options a gRPC server serving runx.plugin.v1 uses
// (Serve's, and sdk/plugin/plugintest's): frames of MaxChunkBytes pass,
// and the wire codec sends a chunk without copying it first.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.ForceServerCodecV2(wire.Codec{}),
		grpc.InitialWindowSize(WindowBytes), grpc.InitialConnWindowSize(WindowBytes),
		grpc.ReadBufferSize(SocketBufferBytes), grpc.WriteBufferSize(SocketBufferBytes),
		// A call is served on a waiting goroutine rather than a new one
		// (gRPC starts one when every worker is busy, so a long call never
		// holds up another): a warm call skips a goroutine's start and
		// its stack's growth.
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
	}
}

// WindowBytes is the HTTP/2 flow-control window, per stream and per
// connection, on both sides of the plugin protocol. Static windows this
// large let a whole frame of MaxChunkBytes be in flight at once, and turn
// off gRPC's bandwidth-delay probing, whose pings a local socket does not
// need. Memory is not held for it: a window only bounds what may be sent
// before the receiver has read it.
const WindowBytes = 8 << 20

// SocketBufferBytes is how much gRPC reads from and batches into the
// plugin's socket per system call, on both sides. gRPC's 32 KiB default
// made a 4 MiB answer some 170 writes and as many reads, each a wake-up of
// the other side; at this size it is about twenty. Larger buys little: a
// unix socket holds about 200 KiB before a write waits for its reader.
const SocketBufferBytes = 256 << 10
