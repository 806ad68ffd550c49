package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/internal/testenv"
)

// cliEnvs holds each workspace's environment, made (and its project
// marked) on its first run only, so the harness's own allocations per run
// stay what the gate's baseline counted.
var cliEnvs sync.Map

// cliRun runs the built runx in dir and returns its wall time and peak RSS
// (the largest of runx and the plugin processes it reaped).
func cliRun(b *testing.B, dir, home string, stdin string, args ...string) (time.Duration, int64, []byte) {
	b.Helper()
	cmd := exec.Command(filepath.Join(binDir, "runx"), args...)
	key := dir + "\x00" + home
	env, ok := cliEnvs.Load(key)
	if !ok {
		testenv.Project(b, dir)
		env, _ = cliEnvs.LoadOrStore(key, testenv.Env(dir, "RUNX_HOME="+home))
	}
	cmd.Dir = dir
	cmd.Env = env.([]string)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	start := time.Now()
	out, err := cmd.Output()
	elapsed := time.Since(start)
	if err != nil && cmd.ProcessState.ExitCode() != 0 && cmd.ProcessState.ExitCode() != 1 {
		b.Fatalf("runx %v: %v\n%s", args, err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return elapsed, ru.Maxrss * 1024, out
}

// BenchmarkColdHelloWorld is `runx skill examples/hello-world` from a cold
// process: load, start the JS worker plugin, run, seal, store. Two processes
// are spawned per run (runx and its worker).
func BenchmarkColdHelloWorld(b *testing.B) {
	dir, home := b.TempDir(), b.TempDir()
	pkg := repoPath("examples/hello-world")
	cliRun(b, dir, home, "", "skill", pkg, "-i", "message=warmup", "--json")
	var lat latencies
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, rss, _ := cliRun(b, dir, home, "", "skill", pkg, "-i", "message=hello", "--json")
		lat = append(lat, d)
		peak = max(peak, rss)
	}
	lat.report(b, time.Millisecond, "ms")
	b.ReportMetric(float64(peak)/(1<<20), "peak_MiB")
	b.ReportMetric(2, "spawns/op")
}

// BenchmarkResumeCold is `runx resume` of a paused one-step run to its seal,
// from a cold process.
func BenchmarkResumeCold(b *testing.B) {
	dir, home := b.TempDir(), b.TempDir()
	skill := filepath.Join(dir, "gate")
	os.MkdirAll(skill, 0o755)
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: gate\ndescription: One approval.\n---\nApprove.\n"), 0o644)
	os.WriteFile(filepath.Join(skill, "run.yaml"), []byte("minimum_runx: 0.1.0\nmethods:\n  go:\n    steps:\n      - id: ok\n        ask: { reason: Go? }\n"), 0o644)
	var lat latencies
	var peak int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		_, _, out := cliRun(b, dir, home, "", "skill", "./gate", "--json")
		runID, digest := field(out, "run_id"), field(out, "request_digest")
		doc := `{"approvals":{"ok":{"request_digest":"` + digest + `","approved":true,"reason":"bench"}}}`
		b.StartTimer()
		d, rss, out := cliRun(b, dir, home, doc, "resume", runID, "-", "--json")
		if !strings.Contains(string(out), `"outcome": "completed"`) {
			b.Fatalf("resume did not seal: %s", out)
		}
		lat = append(lat, d)
		peak = max(peak, rss)
	}
	lat.report(b, time.Millisecond, "ms")
	b.ReportMetric(float64(peak)/(1<<20), "peak_MiB")
}

// field pulls the first string value of a key out of a JSON document.
func field(doc []byte, key string) string {
	s := string(doc)
	i := strings.Index(s, `"`+key+`": "`)
	if i < 0 {
		return ""
	}
	s = s[i+len(key)+5:]
	return s[:strings.IndexByte(s, '"')]
}

// BenchmarkFanOut1000 is a 1,000-item fan-out of a JS module step, driven by
// the CLI: one worker process reused for every item, never one per item.
func BenchmarkFanOut1000(b *testing.B) {
	dir, home := b.TempDir(), b.TempDir()
	skill := filepath.Join(dir, "fan")
	os.MkdirAll(skill, 0o755)
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: fan\ndescription: Squares a thousand numbers.\n---\nFan out.\n"), 0o644)
	os.WriteFile(filepath.Join(skill, "square.mjs"), []byte("export default function (input) { return { square: input.n * input.n }; }\n"), 0o644)
	os.WriteFile(filepath.Join(skill, "run.yaml"), []byte(`minimum_runx: 0.1.0
methods:
  go:
    inputs:
      items: { type: array, required: true }
    steps:
      - id: square
        for_each: $input.items
        concurrency: 8
        tool: { module: square.mjs }
        inputs: { n: $item }
`), 0o644)
	items := make([]string, 1000)
	for i := range items {
		items[i] = strings.TrimSpace(strings.Repeat(" ", 0) + itoa(i))
	}
	doc := `{"items":[` + strings.Join(items, ",") + `]}`
	var lat latencies
	for i := 0; i < b.N; i++ {
		d, _, out := cliRun(b, dir, home, doc, "skill", "./fan", "--inputs", "-", "--json")
		if !strings.Contains(string(out), `"outcome": "completed"`) {
			b.Fatalf("fan-out did not complete: %.400s", out)
		}
		lat = append(lat, d)
	}
	lat.report(b, time.Millisecond, "ms")
	b.ReportMetric(2, "spawns/op")
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var buf [20]byte
	n := len(buf)
	for i > 0 {
		n--
		buf[n] = byte('0' + i%10)
		i /= 10
	}
	return string(buf[n:])
}
