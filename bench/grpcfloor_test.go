package bench

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/pluginhost"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// floorSocketEnv, when set, makes this test binary the floor's server: it
// serves gRPC's standard health service on that unix socket and nothing
// else.
const floorSocketEnv = "RUNX_BENCH_GRPC_FLOOR_SOCKET"

func init() {
	if path := os.Getenv(floorSocketEnv); path != "" {
		os.Exit(serveFloor(path))
	}
}

// serveFloor serves the health service with the plugin protocol's server
// options, says "ready" on stdout once it listens, and stops when its
// stdin closes (the benchmark ended, or died).
func serveFloor(path string) int {
	lis, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := grpc.NewServer(sdk.ServerOptions()...)
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		srv.Stop()
	}()
	fmt.Println("ready")
	_ = srv.Serve(lis)
	return 0
}

// BenchmarkGRPCFloor is the transport's floor under every warm plugin
// call: one raw gRPC unary call (the standard health Check) to another
// process over a unix socket, with the host's dial options and the
// plugin's server options, and nothing of runx's above it. A warm plugin
// dispatch (BenchmarkPluginDispatchWarm) and a connector operation
// (BenchmarkHTTPOperation) cannot cost less than this.
func BenchmarkGRPCFloor(b *testing.B) {
	path := filepath.Join(b.TempDir(), "floor.sock")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), floorSocketEnv+"="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		b.Fatalf("floor server: %q %v", line, err)
	}
	cc, err := grpc.NewClient("unix://"+path, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, pluginhost.GRPCDialOptions()...)...)
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Close()
	client := healthpb.NewHealthClient(cc)
	check := func() {
		resp, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			b.Fatalf("health check: %v %v", resp, err)
		}
	}
	check()
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		check()
		lat = append(lat, time.Since(t))
	}
	lat.report(b, time.Microsecond, "us")
}
