package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runxhq/runx/internal/testenv"
)

// runxEnv runs the built runx binary in one workspace.
type runxEnv struct {
	t    *testing.T
	dir  string
	home string
}

func newRunxEnv(t *testing.T) *runxEnv {
	dir := testenv.Dir(t)
	e := &runxEnv{t: t, dir: dir, home: filepath.Join(dir, ".home")}
	t.Cleanup(func() {
		// No process a scenario started outlives it.
		var list struct {
			Processes []struct {
				ProcessID string `json:"process_id"`
				Running   bool   `json:"running"`
			} `json:"processes"`
		}
		if json.Unmarshal(e.run("process", "list", "--json"), &list) == nil {
			for _, p := range list.Processes {
				if p.Running {
					e.run("process", "stop", p.ProcessID)
				}
			}
		}
	})
	return e
}

func (e *runxEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(binDir, "runx"), args...)
	cmd.Dir = e.dir
	cmd.Env = testenv.Env(e.dir)
	return cmd
}

func (e *runxEnv) run(args ...string) []byte {
	out, _ := e.command(args...).Output()
	return out
}

func (e *runxEnv) json(v any, args ...string) {
	e.t.Helper()
	cmd := e.command(args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("runx %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		e.t.Fatalf("runx %s printed no JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (e *runxEnv) write(rel, content string) {
	e.t.Helper()
	path := filepath.Join(e.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

type skillRun struct {
	Status  string          `json:"status"`
	Outcome string          `json:"outcome"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

type processDoc struct {
	ProcessID string   `json:"process_id"`
	Kind      string   `json:"kind"`
	Actor     string   `json:"actor"`
	Argv      []string `json:"argv"`
	State     string   `json:"state"`
	Running   bool     `json:"running"`
	PID       int      `json:"pid"`
	Message   string   `json:"message"`
	TTY       *struct {
		Rows int `json:"rows"`
	} `json:"tty"`
}

type processList struct {
	Processes []processDoc `json:"processes"`
}

func (e *runxEnv) skill(v any, ref string, inputs ...string) {
	e.t.Helper()
	var r skillRun
	args := []string{"skill", ref, "--json"}
	for _, in := range inputs {
		args = append(args, "-i", in)
	}
	e.json(&r, args...)
	if r.Status != "sealed" || r.Outcome != "completed" {
		e.t.Fatalf("runx skill %s: %s %s %s", ref, r.Status, r.Outcome, r.Error)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			e.t.Fatalf("result %s: %v", r.Result, err)
		}
	}
}

// readUntil follows `runx process read` by cursor until the output holds a
// match of pattern, and returns the match.
func (e *runxEnv) readUntil(id string, pattern *regexp.Regexp) []string {
	e.t.Helper()
	var text strings.Builder
	cursor := ""
	deadline := time.Now().Add(20 * time.Second)
	for {
		var out struct {
			Chunks []struct {
				Stream string `json:"stream"`
				Data   string `json:"data"`
			} `json:"chunks"`
			Cursor  string `json:"cursor"`
			Running bool   `json:"running"`
			State   string `json:"state"`
		}
		args := []string{"process", "read", id, "--json"}
		if cursor != "" {
			args = append(args, "--after", cursor)
		}
		e.json(&out, args...)
		for _, c := range out.Chunks {
			text.WriteString(c.Data)
		}
		if m := pattern.FindStringSubmatch(text.String()); m != nil {
			return m
		}
		if !out.Running || time.Now().After(deadline) {
			e.t.Fatalf("process %s (%s) never printed %s; printed %q", id, out.State, pattern, text.String())
		}
		cursor = out.Cursor
	}
}

func buildDevServer(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "devserver")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/devserver")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return bin
}

const devSkill = `minimum_runx: 0.1.0
methods:
  start:
    description: Start the dev server.
    inputs:
      server: { type: string, required: true }
    steps:
      - id: serve
        tool: process.start
        inputs: { command: $input.server, max_seconds: 600 }
  start_tty:
    description: Start a program in a terminal.
    steps:
      - id: serve
        tool: process.start
        inputs: { command: sh, args: ["-c", "[ -t 0 ] && echo is-a-tty; stty size; read l; echo typed:$l; sleep 60"], tty: { rows: 30, cols: 100 } }
  say:
    description: Type a line to it.
    inputs:
      process_id: { type: string, required: true }
      line: { type: string, required: true }
    steps:
      - id: type
        tool: process.write
        inputs: { process_id: $input.process_id, input: $input.line }
  list:
    description: List this actor's processes.
    steps:
      - id: list
        tool: process.list
        inputs: {}
`

// TestDevServerScenario starts a real HTTP server as a process that
// outlives its run, follows its log until it listens, types to it from a
// second run, stops it, and records a supervisor's kill -9.
func TestDevServerScenario(t *testing.T) {
	server := buildDevServer(t)
	e := newRunxEnv(t)
	e.write("dev/SKILL.md", "---\nname: dev\ndescription: Runs a dev server.\n---\nManual.\n")
	e.write("dev/run.yaml", devSkill)

	var p processDoc
	e.skill(&p, "./dev#start", "server="+server)
	if !p.Running || p.State != "running" || p.Kind != "process" || p.Actor != "local" {
		t.Fatalf("started %+v", p)
	}
	// The run has sealed; the server still runs and its log says where.
	m := e.readUntil(p.ProcessID, regexp.MustCompile(`listening on (http://[0-9.:]+)`))
	url := m[1]
	if body := httpGet(t, url); body != "hello" {
		t.Fatalf("served %q", body)
	}
	// A second run of the same actor reaches it and types to it.
	var w struct {
		Bytes int `json:"bytes"`
	}
	e.skill(&w, "./dev#say", "process_id="+p.ProcessID, "line=say hi there\n")
	if w.Bytes != len("say hi there\n") {
		t.Fatalf("wrote %+v", w)
	}
	e.readUntil(p.ProcessID, regexp.MustCompile(`said hi there`))
	if body := httpGet(t, url); body != "hi there" {
		t.Fatalf("served %q after the write", body)
	}
	var listed processList
	e.skill(&listed, "./dev#list")
	if len(listed.Processes) != 1 || listed.Processes[0].ProcessID != p.ProcessID || !listed.Processes[0].Running {
		t.Fatalf("a later run lists %+v", listed)
	}
	// stderr is kept apart from stdout in the log.
	e.readUntil(p.ProcessID, regexp.MustCompile(`dev server ready`))

	var stopped processDoc
	e.json(&stopped, "process", "stop", p.ProcessID, "--json")
	if stopped.State != "stopped" || stopped.Running {
		t.Fatalf("stopped %+v", stopped)
	}
	if _, err := http.Get(url); err == nil {
		t.Fatal("the server still answers after its stop")
	}
	var all processList
	e.json(&all, "process", "list", "--json")
	if len(all.Processes) != 1 || all.Processes[0].State != "stopped" {
		t.Fatalf("list %+v", all)
	}
	if out := e.run("process", "list", "--actor", "someone-else", "--json"); !strings.Contains(string(out), `"processes": []`) {
		t.Fatalf("another actor's list: %s", out)
	}

	// A supervisor killed with -9 is recorded, and its server dies with it.
	var q processDoc
	e.skill(&q, "./dev#start", "server="+server)
	url = e.readUntil(q.ProcessID, regexp.MustCompile(`listening on (http://[0-9.:]+)`))[1]
	supervisor := parentOf(t, q.PID)
	if err := syscall.Kill(supervisor, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		e.json(&all, "process", "list", "--json")
		if got := all.Processes[1]; got.State == "lost" {
			if got.Running || !strings.Contains(got.Message, "supervisor") {
				t.Fatalf("lost %+v", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed supervisor was never recorded: %+v", all.Processes[1])
		}
	}
	for deadline = time.Now().Add(5 * time.Second); ; {
		if _, err := http.Get(url); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server outlived its killed supervisor")
		}
	}
	if out := e.run("process", "read", "proc_nope", "--json"); !strings.Contains(string(out), `"code": "process_not_found"`) {
		t.Fatalf("read of an unknown process: %s", out)
	}
}

// TestProcessInARealTerminal runs a program in a real pseudo-terminal
// through a run and the CLI.
func TestProcessInARealTerminal(t *testing.T) {
	e := newRunxEnv(t)
	e.write("dev/SKILL.md", "---\nname: dev\ndescription: Runs a dev server.\n---\nManual.\n")
	e.write("dev/run.yaml", devSkill)
	var p processDoc
	e.skill(&p, "./dev#start_tty")
	if p.TTY == nil || p.TTY.Rows != 30 {
		t.Fatalf("started %+v", p)
	}
	e.readUntil(p.ProcessID, regexp.MustCompile(`is-a-tty\s+30 100`))
	e.skill(nil, "./dev#say", "process_id="+p.ProcessID, "line=typed text\r")
	e.readUntil(p.ProcessID, regexp.MustCompile(`typed:typed text`))
	var stopped processDoc
	e.json(&stopped, "process", "stop", p.ProcessID, "--json")
	if stopped.State != "stopped" {
		t.Fatalf("stopped %+v", stopped)
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// parentOf reads a process's parent from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// TestCommandFollowedAsProcess: a run's command.execute is recorded as a
// process of kind command while it runs, its log read by cursor, and
// `runx process stop` stops it.
func TestCommandFollowedAsProcess(t *testing.T) {
	e := newRunxEnv(t)
	e.write("build/SKILL.md", "---\nname: build\ndescription: Builds slowly.\n---\nManual.\n")
	e.write("build/run.yaml", `minimum_runx: 0.1.0
methods:
  run:
    steps:
      - id: make
        tool: command.execute
        inputs: { argv: ["sh", "-c", "echo compiling; sleep 60; echo done"] }
`)
	cmd := e.command("skill", "./build", "--json")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	var list processList
	for deadline := time.Now().Add(20 * time.Second); ; {
		e.json(&list, "process", "list", "--json")
		if len(list.Processes) == 1 && list.Processes[0].Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command was never listed: %+v", list)
		}
	}
	p := list.Processes[0]
	if p.Kind != "command" || !regexp.MustCompile(`^run_[0-9a-z]+#make@1$`).MatchString(p.ProcessID) {
		t.Fatalf("listed %+v", p)
	}
	e.readUntil(p.ProcessID, regexp.MustCompile(`compiling`))
	var stopped processDoc
	e.json(&stopped, "process", "stop", p.ProcessID, "--json")
	if stopped.State != "stopped" {
		t.Fatalf("stopped %+v", stopped)
	}
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the run kept waiting on its stopped command")
	}
	if !strings.Contains(stdout.String(), `"stopped": true`) || !strings.Contains(stdout.String(), `"stdout": "compiling\n"`) {
		t.Fatalf("the run printed %s", stdout.String())
	}
}
