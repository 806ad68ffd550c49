package bench

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/host"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// echoSupervisor starts the example third-party plugin as the kernel would:
// pinned, lazily, over the private socket directory.
func echoSupervisor(b *testing.B) *host.Supervisor {
	b.Helper()
	return echoSupervisorWith(b, nil)
}

// echoSupervisorWith is echoSupervisor with the kernel's taint set.
func echoSupervisorWith(b *testing.B, taint *credential.Taint) *host.Supervisor {
	b.Helper()
	root := b.TempDir()
	project := filepath.Join(root, ".runx")
	os.MkdirAll(filepath.Join(project, "plugins"), 0o755)
	raw, err := os.ReadFile(filepath.Join(binDir, "runx-plugin-echo"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(project, "plugins", "runx-plugin-echo")
	os.WriteFile(path, raw, 0o755)
	sum, _ := host.FileSHA256(path)
	host.WriteLock(project, &host.Lock{Plugins: map[string]host.LockEntry{"echo": {SHA256: hex.EncodeToString(sum)}}})
	self := filepath.Join(binDir, "runx")
	s, err := host.NewSupervisor(host.Config{Discovery: &host.Discovery{Self: self, FirstParty: map[string]bool{"process": true, "js": true}, ProjectDir: project, HomeDir: filepath.Join(root, "home")}, RunxVersion: "bench", Taint: taint})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

// BenchmarkPluginDispatchWarm is one warm call through a plugin process: the
// kernel's whole dispatch path (stream, frames, result), not the capability.
func BenchmarkPluginDispatchWarm(b *testing.B) {
	s := echoSupervisor(b)
	call := &sdk.Call{Capability: "echo.shout", Input: []byte(`{"message":"hi"}`)}
	if _, _, err := s.Invoke(context.Background(), call, 0); err != nil {
		b.Fatal(err)
	}
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		if _, _, err := s.Invoke(context.Background(), call, 0); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	lat.report(b, time.Microsecond, "us")
}

// BenchmarkPluginColdStart is starting a plugin process and its first call.
func BenchmarkPluginColdStart(b *testing.B) {
	call := &sdk.Call{Capability: "echo.shout", Input: []byte(`{"message":"hi"}`)}
	var lat latencies
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := echoSupervisor(b)
		b.StartTimer()
		t := time.Now()
		if _, _, err := s.Invoke(context.Background(), call, 0); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	lat.report(b, time.Millisecond, "ms")
	b.ReportMetric(1, "spawns/op")
}

// BenchmarkLargePayload64MiB sends 64 MiB into a plugin and 64 MiB back.
func BenchmarkLargePayload64MiB(b *testing.B) {
	s := echoSupervisor(b)
	msg := strings.Repeat("abcdefgh", 8<<20)
	input, _ := json.Marshal(map[string]string{"message": msg})
	call := &sdk.Call{Capability: "echo.shout", Input: input}
	b.SetBytes(int64(2 * len(input)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, _, err := s.Invoke(context.Background(), call, 0)
		if err != nil || len(res.Output) < 64<<20 {
			b.Fatalf("round trip: %v (%d bytes)", err, len(res.Output))
		}
	}
}

// BenchmarkProcessLaunch is one supervised process (`true`) through the
// process plugin, warm: the launch itself, argv exact, group killed after.
func BenchmarkProcessLaunch(b *testing.B) {
	s := echoSupervisor(b)
	dir := b.TempDir()
	input, _ := json.Marshal(map[string]any{"argv": []string{"true"}, "cwd": dir})
	call := &sdk.Call{Capability: "process.run", Input: input}
	if _, _, err := s.Invoke(context.Background(), call, 0); err != nil {
		b.Fatal(err)
	}
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		res, _, err := s.Invoke(context.Background(), call, 0)
		if err != nil || res.Status != sdk.StatusOK {
			b.Fatalf("%v %+v", err, res)
		}
		lat = append(lat, time.Since(t))
	}
	lat.report(b, time.Millisecond, "ms")
	b.ReportMetric(1, "spawns/op")
}
