package native

import (
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// A failed process tool's error keeps the end of what it printed, bounded:
// the message ends with its stderr (else its stdout), the detail keeps
// both, each at most ProcessFailureTailBytes and cut at a character.
func TestProcessFailureKeepsBoundedOutputTail(t *testing.T) {
	long := strings.Repeat("é", ProcessFailureTailBytes) + "\nerror: the last line\n"
	for name, tc := range map[string]struct {
		answer  processAnswer
		code    errcode.Code
		tail    string
		cut     bool
		noTails bool
	}{
		"exit with stderr":    {processAnswer{ExitCode: 3, Stdout: "partial\n", Stderr: "compile error on line 3\n"}, "process_exit_nonzero", "compile error on line 3", false, false},
		"exit, stdout only":   {processAnswer{ExitCode: 1, Stdout: "FAIL: TestX\n"}, "process_exit_nonzero", "FAIL: TestX", false, false},
		"long stderr":         {processAnswer{ExitCode: 2, Stderr: long}, "process_exit_nonzero", "error: the last line", true, false},
		"timeout":             {processAnswer{TimedOut: true, Stderr: "still waiting\n"}, "process_timeout", "still waiting", false, false},
		"signalled":           {processAnswer{Signal: "SIGKILL", Stderr: "oom\n"}, "process_signalled", "oom", false, false},
		"stdout not json":     {processAnswer{Stdout: "not json\n"}, "process_output_not_json", "not json", false, false},
		"nothing was printed": {processAnswer{ExitCode: 3}, "process_exit_nonzero", "", false, true},
	} {
		raw, _ := json.Marshal(map[string]any{"exit_code": tc.answer.ExitCode, "signal": tc.answer.Signal, "stdout": tc.answer.Stdout, "stderr": tc.answer.Stderr, "timed_out": tc.answer.TimedOut})
		_, failure := InterpretProcess("sh", raw, "sha256:x", 0, &receipt.Body{})
		if failure == nil || failure.Code != tc.code {
			t.Fatalf("%s: got %+v, want %s", name, failure, tc.code)
		}
		if !strings.HasSuffix(failure.Message, tc.tail) {
			t.Errorf("%s: message %q does not end with %q", name, failure.Message, tc.tail)
		}
		if tc.noTails {
			if failure.Detail != nil {
				t.Errorf("%s: detail %+v for a process that printed nothing", name, failure.Detail)
			}
			continue
		}
		d, ok := failure.Detail.(ProcessOutputTail)
		if !ok {
			t.Fatalf("%s: detail %#v", name, failure.Detail)
		}
		if len(d.Stderr) > ProcessFailureTailBytes || len(d.Stdout) > ProcessFailureTailBytes || len(failure.Message) > 2*ProcessFailureTailBytes {
			t.Errorf("%s: a tail past %d bytes: %d, %d, message %d", name, ProcessFailureTailBytes, len(d.Stderr), len(d.Stdout), len(failure.Message))
		}
		if d.StderrTruncated != tc.cut || !utf8.ValidString(d.Stderr) || !utf8.ValidString(failure.Message) {
			t.Errorf("%s: stderr %q truncated=%v", name, d.Stderr, d.StderrTruncated)
		}
	}
}

// A process tool is sent its exact argv, a cwd inside its package and only
// its declared environment; a cwd leaving the package, or a required
// variable that is not set, is refused before anything starts.
func TestPrepareProcess(t *testing.T) {
	pkgDir := t.TempDir()
	hostEnv := map[string]string{"TOKEN_NAME": "t1", "HOME": "/home/someone", "OPTIONAL_SET": "o"}
	lookup := func(k string) (string, bool) { v, ok := hostEnv[k]; return v, ok }
	step := func(c pkg.CommandTool) *pkg.Step {
		return &pkg.Step{ID: "run", Kind: pkg.KindCommand, Tool: &pkg.ToolStep{Command: &c}}
	}
	inputs := map[string]any{"summary": "hi", "n": float64(2)}

	p, err := PrepareProcess(step(pkg.CommandTool{Command: "sh", Args: []string{"-c", "true"}, Cwd: "bin",
		Environment: pkg.CommandEnvironment{Required: []string{"TOKEN_NAME"}, Optional: []string{"OPTIONAL_SET", "OPTIONAL_UNSET"}}}),
		pkgDir, lookup, inputs, 7*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"TOKEN_NAME": "t1", "OPTIONAL_SET": "o"}
	if got := p.Input["env"].(map[string]string); !maps.Equal(got, want) {
		t.Errorf("env %v, want only the declared %v", got, want)
	}
	if p.Input["cwd"] != filepath.Join(pkgDir, "bin") || p.Input["stdin"] != `{"n":2,"summary":"hi"}` || p.Input["timeout_ms"] != int64(7000) || p.Timeout != 7*time.Second {
		t.Errorf("request %v, timeout %v", p.Input, p.Timeout)
	}
	if d, _ := canon.Digest([]string{"sh", "-c", "true"}); p.ArgvDigest != d {
		t.Errorf("argv digest %s, want %s", p.ArgvDigest, d)
	}

	p, err = PrepareProcess(step(pkg.CommandTool{Command: "sh", InputMode: "env"}), pkgDir, lookup, inputs, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if env := p.Input["env"].(map[string]string); env["RUNX_INPUT_SUMMARY"] != "hi" || env["RUNX_INPUT_N"] != "2" || p.Input["stdin"] != nil {
		t.Errorf("input_mode env: %v", p.Input)
	}

	for name, tc := range map[string]struct {
		c    pkg.CommandTool
		code string
	}{
		"cwd leaves the package":  {pkg.CommandTool{Command: "sh", Cwd: "../elsewhere"}, "process_cwd_outside_package"},
		"required variable unset": {pkg.CommandTool{Command: "sh", Environment: pkg.CommandEnvironment{Required: []string{"NOT_SET"}}}, "process_environment_missing"},
	} {
		_, err := PrepareProcess(step(tc.c), pkgDir, lookup, inputs, time.Second)
		var ce *contract.Error
		if !errors.As(err, &ce) || string(ce.Code) != tc.code {
			t.Errorf("%s: got %v, want %s", name, err, tc.code)
		}
	}
}
