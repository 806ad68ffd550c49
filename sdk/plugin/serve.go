package plugin

import (
	"context"
	"os"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc"
)

// ServeOption adjusts Serve.
type ServeOption func(*serveConfig)

type serveConfig struct {
	protocolVersion int
	logger          hclog.Logger
}

// WithProtocolVersion serves under another wire protocol version. It exists
// so tests can prove a kernel refuses a version it does not speak.
func WithProtocolVersion(v int) ServeOption {
	return func(c *serveConfig) { c.protocolVersion = v }
}

// Serve runs impl as a runx plugin until the kernel stops it. It never
// returns to the caller in normal operation. Stdout belongs to the go-plugin
// handshake; logs go to stderr as JSON, where the kernel re-emits them under
// the plugin's name.
func Serve(impl Plugin, opts ...ServeOption) {
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
			cfg.protocolVersion: {pluginKey: &grpcPlugin{impl: impl, logger: cfg.logger}},
		},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.MaxRecvMsgSize(maxMessageBytes), grpc.MaxSendMsgSize(maxMessageBytes))
			return grpc.NewServer(opts...)
		},
		Logger: cfg.logger,
	})
}

// grpcPlugin adapts a Plugin to go-plugin's GRPCPlugin on both sides.
type grpcPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	impl   Plugin
	logger hclog.Logger
}

func (p *grpcPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterCapabilityServer(s, newServer(p.impl, p.logger))
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{rpc: pluginv1.NewCapabilityClient(c)}, nil
}

// ClientPluginSet is the plugin map a kernel hands go-plugin, keyed by the
// protocol versions it speaks.
func ClientPluginSet() map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{ProtocolVersion: {pluginKey: &grpcPlugin{}}}
}

// Dispense returns the Client a started go-plugin connection serves.
func Dispense(rpc goplugin.ClientProtocol) (*Client, error) {
	raw, err := rpc.Dispense(pluginKey)
	if err != nil {
		return nil, err
	}
	return raw.(*Client), nil
}

// GRPCDialOptions are the dial options a kernel must use so frames of
// MaxChunkBytes pass.
func GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(maxMessageBytes), grpc.MaxCallSendMsgSize(maxMessageBytes))}
}
