package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/pluginhost"
)

// Binary is a plugin executable and how to start it.
type Binary struct {
	Path string
	Args []string
	// Env is added to the plugin's otherwise empty environment (PATH and
	// TMPDIR are passed, as runx passes them).
	Env []string
}

// started is one plugin process the suite launched and attached to.
type started struct {
	cmd       *exec.Cmd
	client    *pluginhost.Client
	proc      *goplugin.Client
	handshake string
	stdout    *lockedBuffer // raw fd 1 after the handshake line
	synced    *lockedBuffer // os.Stdout as go-plugin forwards it over gRPC
	stderr    *lockedBuffer
	done      chan struct{}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startTimeout bounds the handshake on a loaded machine.
const startTimeout = 30 * time.Second

// launch starts the binary and reads its handshake line from its stdout
// itself, so every byte after it is seen; then attaches go-plugin's client
// to the address the line names.
func launch(tb testing.TB, b Binary) *started {
	tb.Helper()
	cmd := exec.Command(b.Path, b.Args...)
	cmd.Env = []string{
		plugin.Handshake.MagicCookieKey + "=" + plugin.Handshake.MagicCookieValue,
		fmt.Sprintf("PLUGIN_PROTOCOL_VERSIONS=%d", plugin.ProtocolVersion),
		"PLUGIN_UNIX_SOCKET_DIR=" + tb.TempDir(),
	}
	for _, k := range []string{"PATH", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Env = append(cmd.Env, b.Env...)
	cmd.Dir = tb.TempDir()
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	s := &started{cmd: cmd, stdout: &lockedBuffer{}, synced: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", b.Path, err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
	})
	lines := bufio.NewReader(out)
	first := make(chan string, 1)
	go func() {
		line, _ := lines.ReadString('\n')
		first <- line
		_, _ = io.Copy(s.stdout, lines)
		_ = cmd.Wait()
		close(s.done)
	}()
	select {
	case s.handshake = <-first:
	case <-time.After(startTimeout):
		tb.Fatalf("%s wrote no handshake within %s; stderr:\n%s", b.Path, startTimeout, s.stderr)
	}
	addr := parseHandshake(tb, s.handshake, s.stderr)
	s.proc = goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig: plugin.Handshake,
		// A reattached client takes its plugin set from Plugins.
		Plugins:          pluginhost.ClientPluginSet()[plugin.ProtocolVersion],
		Logger:           hclog.NewNullLogger(),
		Reattach:         &goplugin.ReattachConfig{Protocol: goplugin.ProtocolGRPC, ProtocolVersion: plugin.ProtocolVersion, Addr: addr, Pid: cmd.Process.Pid, Test: true},
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		GRPCDialOptions:  pluginhost.GRPCDialOptions(),
		SyncStdout:       s.synced,
		SyncStderr:       io.Discard,
	})
	tb.Cleanup(s.proc.Kill)
	rpc, err := s.proc.Client()
	if err != nil {
		tb.Fatalf("attach to %s: %v", b.Path, err)
	}
	if s.client, err = pluginhost.Dispense(rpc); err != nil {
		tb.Fatalf("dispense %s: %v", b.Path, err)
	}
	return s
}

// parseHandshake reads go-plugin's handshake line:
// CORE|APP|NETWORK|ADDR|PROTOCOL[|CERT].
func parseHandshake(tb testing.TB, line string, stderr fmt.Stringer) net.Addr {
	tb.Helper()
	parts := strings.Split(strings.TrimSpace(line), "|")
	if len(parts) < 5 {
		tb.Fatalf("the first line of stdout is not a go-plugin handshake: %q; stderr:\n%s", line, stderr)
	}
	if parts[1] != fmt.Sprint(plugin.ProtocolVersion) {
		tb.Fatalf("the plugin speaks runx.plugin.v%s; runx speaks v%d", parts[1], plugin.ProtocolVersion)
	}
	if parts[4] != string(goplugin.ProtocolGRPC) {
		tb.Fatalf("the plugin serves %q; runx plugins serve grpc", parts[4])
	}
	switch parts[2] {
	case "unix":
		return &net.UnixAddr{Net: "unix", Name: parts[3]}
	case "tcp":
		a, err := net.ResolveTCPAddr("tcp", parts[3])
		if err != nil {
			tb.Fatal(err)
		}
		return a
	}
	tb.Fatalf("the handshake names network %q", parts[2])
	return nil
}
