package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/internal/testenv"
)

// registryServe starts `runx registry serve` on a free loopback port over
// the data directory data and returns its URL and public key, once it says
// it listens; it stops with the benchmark.
func registryServe(b *testing.B, home, data string) (url, key string) {
	b.Helper()
	cmd := exec.Command(filepath.Join(binDir, "runx"), "registry", "serve", "--addr", "127.0.0.1:0", "--data", data, "--json")
	cmd.Env = testenv.Env(b.TempDir(), "RUNX_HOME="+home)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	rd := bufio.NewReader(out)
	line, err := rd.ReadBytes('\n')
	if err != nil {
		b.Fatalf("registry serve printed no readiness line: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, rd) }()
	var ready struct{ URL, Key string }
	if err := json.Unmarshal(line, &ready); err != nil || ready.URL == "" {
		b.Fatalf("registry serve's readiness line is %q", line)
	}
	return ready.URL, ready.Key
}

// runxIn runs the built runx in dir with env, fails the benchmark unless
// it exits 0, and returns its output and the CPU time it used.
func runxIn(b *testing.B, dir string, env []string, args ...string) ([]byte, time.Duration) {
	b.Helper()
	cmd := exec.Command(filepath.Join(binDir, "runx"), args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("runx %v: %v\n%s", args, err, out)
	}
	return out, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkRegistryInstall50Cold is `runx registry install` of a 50-file
// skill from a registry on loopback (a real `runx registry serve` over
// SQLite), each time a cold process into a project that holds nothing yet:
// the versions, the signed record and the files fetched, the signature and
// every file checked, staged, repackaged and renamed into place.
func BenchmarkRegistryInstall50Cold(b *testing.B) {
	home, data := b.TempDir(), b.TempDir()
	url, key := registryServe(b, home, data)
	work := b.TempDir()
	testenv.Project(b, work)
	env := testenv.Env(work, "RUNX_HOME="+home, "RUNX_REGISTRY_URL="+url)
	out, _ := runxIn(b, work, env, "registry", "token", "create", "--data", data, "--namespace", "acme")
	token := strings.TrimSpace(string(out))
	skill := filepath.Join(work, "bench50")
	os.MkdirAll(filepath.Join(skill, "docs"), 0o755)
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: bench50\nversion: 1.0.0\ndescription: Fifty files to install.\n---\n\n# bench50\n"), 0o644)
	for i := range 48 { // with SKILL.md and runx.package.json: 50 files
		os.WriteFile(filepath.Join(skill, "docs", fmt.Sprintf("page-%02d.md", i)), []byte(strings.Repeat(fmt.Sprintf("page %d of the bench package\n", i), 64)), 0o644)
	}
	runxIn(b, work, append(env, "RUNX_REGISTRY_TOKEN="+token), "registry", "publish", skill, "--json")
	runxIn(b, work, env, "registry", "trust", "add", "--registry", url, "--key", key, "--namespace", "acme")
	var lat latencies
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		project := filepath.Join(b.TempDir(), "p")
		testenv.Project(b, project)
		penv := testenv.Env(project, "RUNX_HOME="+home, "RUNX_REGISTRY_URL="+url)
		b.StartTimer()
		start := time.Now()
		out, used := runxIn(b, project, penv, "registry", "install", "acme/bench50@1.0.0", "--json")
		lat = append(lat, time.Since(start))
		cpu += used
		if !strings.Contains(string(out), `"status": "installed"`) {
			b.Fatalf("not installed: %s", out)
		}
	}
	lat.report(b, time.Millisecond, "ms")
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(1, "spawns/op")
}
