package pluginhost

import (
	"context"
	"errors"
	"fmt"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/runxhq/runx/sdk/plugin"
	"google.golang.org/grpc"
)

// ProtocolError says the plugin speaks a wire protocol version this host
// does not. Version is what go-plugin negotiated with the plugin.
type ProtocolError struct {
	Version   int
	Supported int
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("the plugin speaks runx.plugin.v%d; this host speaks runx.plugin.v%d", e.Version, e.Supported)
}

// maxProbedVersion bounds the versions a failed handshake is probed for. A
// plugin beyond it still fails to start, only without its version named.
const maxProbedVersion = 64

// Started is one plugin process with its runx.plugin.v1 client.
type Started struct {
	Process *goplugin.Client
	Client  *Client
}

// Start launches a plugin over go-plugin in gRPC mode and dispenses its
// client. newConfig returns a fresh configuration (with a fresh Cmd) each
// time it is called; Start sets the handshake, the plugin sets, the
// protocol and the dial options on it.
//
// When the handshake fails, Start finds out whether the plugin speaks
// another protocol version by starting it once more offering only versions
// this host does not speak: go-plugin then negotiates the plugin's own
// version, and Start answers a *ProtocolError naming it. The first
// handshake offers only the supported version, so a plugin that serves
// several versions including it picks it rather than a newer one.
//
// go-plugin's wait for the handshake does not watch ctx: a Cmd made with
// exec.CommandContext(ctx, ...) is killed when ctx ends, which ends the
// wait at once. A start that fails once ctx has ended answers ctx's error
// (wrapped), whatever go-plugin made of the killed process.
func Start(ctx context.Context, newConfig func() *goplugin.ClientConfig) (*Started, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	proc := goplugin.NewClient(configure(newConfig(), ClientPluginSet()))
	rpc, err := proc.Client()
	if err != nil {
		proc.Kill()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %v", ctx.Err(), err)
		}
		if errors.Is(err, goplugin.ErrChecksumsDoNotMatch) {
			return nil, err
		}
		if v, ok := probeVersion(newConfig); ok {
			return nil, &ProtocolError{Version: v, Supported: plugin.ProtocolVersion}
		}
		return nil, err
	}
	if v := proc.NegotiatedVersion(); v != plugin.ProtocolVersion {
		proc.Kill()
		return nil, &ProtocolError{Version: v, Supported: plugin.ProtocolVersion}
	}
	c, err := Dispense(rpc)
	if err != nil {
		proc.Kill()
		return nil, err
	}
	return &Started{Process: proc, Client: c}, nil
}

// probeVersion starts the plugin offering every version but the supported
// one and reports what go-plugin negotiated.
func probeVersion(newConfig func() *goplugin.ClientConfig) (int, bool) {
	probe := map[int]goplugin.PluginSet{}
	for v := 1; v <= maxProbedVersion; v++ {
		if v != plugin.ProtocolVersion {
			probe[v] = goplugin.PluginSet{plugin.PluginSetKey: &unsupported{}}
		}
	}
	proc := goplugin.NewClient(configure(newConfig(), probe))
	defer proc.Kill()
	if _, err := proc.Client(); err != nil {
		return 0, false
	}
	return proc.NegotiatedVersion(), true
}

func configure(cfg *goplugin.ClientConfig, plugins map[int]goplugin.PluginSet) *goplugin.ClientConfig {
	if cfg.HandshakeConfig.MagicCookieKey == "" {
		cfg.HandshakeConfig = plugin.Handshake
	}
	cfg.VersionedPlugins = plugins
	cfg.AllowedProtocols = []goplugin.Protocol{goplugin.ProtocolGRPC}
	cfg.GRPCDialOptions = append(cfg.GRPCDialOptions, GRPCDialOptions()...)
	return cfg
}

// ClientPluginSet is the plugin map a host hands go-plugin, keyed by the
// protocol versions it speaks.
func ClientPluginSet() map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{plugin.ProtocolVersion: {plugin.PluginSetKey: &grpcClientPlugin{}}}
}

// Dispense returns the Client a started go-plugin connection serves.
func Dispense(rpc goplugin.ClientProtocol) (*Client, error) {
	raw, err := rpc.Dispense(plugin.PluginSetKey)
	if err != nil {
		return nil, err
	}
	c, ok := raw.(*Client)
	if !ok {
		return nil, fmt.Errorf("the plugin set dispensed %T, not a runx.plugin.v1 client", raw)
	}
	return c, nil
}

// GRPCDialOptions are the dial options a host must use so frames of
// plugin.MaxChunkBytes pass. The flow-control windows and the socket
// buffers are as large as the plugin's (plugin.ServerOptions).
func GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(plugin.MaxMessageBytes), grpc.MaxCallSendMsgSize(plugin.MaxMessageBytes)),
		grpc.WithInitialWindowSize(plugin.WindowBytes), grpc.WithInitialConnWindowSize(plugin.WindowBytes),
		grpc.WithReadBufferSize(plugin.SocketBufferBytes), grpc.WithWriteBufferSize(plugin.SocketBufferBytes),
	}
}

// grpcClientPlugin is the host half of go-plugin's GRPCPlugin.
type grpcClientPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
}

func (*grpcClientPlugin) GRPCServer(*goplugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the host side of runx.plugin.v1 serves nothing")
}

func (*grpcClientPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewClient(c), nil
}

// unsupported stands for a protocol version this host does not speak: it
// lets the handshake negotiate so the version can be named, and dispenses
// nothing.
type unsupported struct {
	goplugin.NetRPCUnsupportedPlugin
}

func (*unsupported) GRPCServer(*goplugin.GRPCBroker, *grpc.Server) error {
	return errors.New("unsupported protocol version")
}

func (*unsupported) GRPCClient(context.Context, *goplugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("unsupported protocol version")
}
