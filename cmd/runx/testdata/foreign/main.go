// Command runx-plugin-foreign is a third-party plugin not built on the sdk's
// Serve: it serves runx.plugin.v1 through go-plugin itself, so it has none
// of the sdk's handling of its driver's death, and it ignores SIGTERM. Its
// one call starts a shell in a session of its own, which starts a sleep:
// a child and a grandchild outside the plugin's process group. It writes
// the three pids to foreign-pids in its TMPDIR (the readiness signal a test
// waits on) and answers them.
//
// foreign/confirm declares itself idempotent (a second send of the same
// call acts once) and answers effect_unconfirmed to a call's first
// attempt, as a plugin does that cannot tell whether an earlier send
// acted; a later attempt (a person's retry) answers the attempt it is.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc"
)

type foreign struct{}

func (foreign) Info() plugin.Info {
	return plugin.Info{
		Name:    "foreign",
		Version: "1.0.0",
		Capabilities: []plugin.Definition{{
			ID:           "foreign/spawn",
			Summary:      "Start a child in a session of its own, which starts a grandchild, and answer their pids.",
			InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["pids"],"properties":{"pids":{"type":"array","items":{"type":"integer"}}}}`),
			Effect:       plugin.EffectNone,
			Approval:     plugin.ApprovalNone,
		}, {
			ID:           "foreign/confirm",
			Summary:      "Answer effect_unconfirmed to a call's first attempt, and the attempt to any later one.",
			InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["attempt"],"properties":{"attempt":{"type":"integer"}}}`),
			Effect:       plugin.EffectWrite,
			Approval:     plugin.ApprovalNone,
			Idempotent:   true,
		}},
	}
}

func (foreign) Invoke(_ context.Context, call *plugin.Call) *plugin.Result {
	if call.Capability == "foreign/confirm" {
		if call.Context.Attempt <= 1 {
			return plugin.Failed(errcode.EffectUnconfirmed, "an earlier send of call "+call.Context.CallID+" may have acted")
		}
		raw, _ := json.Marshal(map[string]int{"attempt": call.Context.Attempt})
		return plugin.OK(raw, nil)
	}
	cmd := exec.Command("sh", "-c", `sleep 300 & echo $!; wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return plugin.Failed("spawn_failed", err.Error())
	}
	if err := cmd.Start(); err != nil {
		return plugin.Failed("spawn_failed", err.Error())
	}
	go func() { _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return plugin.Failed("spawn_failed", err.Error())
	}
	var grandchild int
	fmt.Sscan(strings.TrimSpace(line), &grandchild)
	pids := []int{os.Getpid(), cmd.Process.Pid, grandchild}
	marker := filepath.Join(os.TempDir(), "foreign-pids")
	if err := os.WriteFile(marker+".tmp", []byte(fmt.Sprint(pids[0], pids[1], pids[2])), 0o644); err != nil {
		return plugin.Failed("spawn_failed", err.Error())
	}
	if err := os.Rename(marker+".tmp", marker); err != nil {
		return plugin.Failed("spawn_failed", err.Error())
	}
	raw, _ := json.Marshal(map[string][]int{"pids": pids})
	return plugin.OK(raw, nil)
}

// server is go-plugin's half of runx.plugin.v1, without the sdk's Serve.
type server struct {
	goplugin.NetRPCUnsupportedPlugin
}

func (server) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterCapabilityServer(s, plugin.NewServer(foreign{}, hclog.NewNullLogger(), plugin.ProtocolVersion))
	return nil
}

func (server) GRPCClient(context.Context, *goplugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, fmt.Errorf("a plugin serves; it is no client")
}

func main() {
	signal.Ignore(syscall.SIGTERM)
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: plugin.Handshake,
		VersionedPlugins: map[int]goplugin.PluginSet{
			plugin.ProtocolVersion: {plugin.PluginSetKey: server{}},
		},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, plugin.ServerOptions()...)...)
		},
	})
}
