package native

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/receipt"
)

// A failed process tool's error keeps the end of what it printed, bounded:
// the message ends with its stderr (else its stdout), the detail keeps
// both, each at most ProcessFailureTailBytes and cut at a character.
func TestProcessFailureKeepsBoundedOutputTail(t *testing.T) {
	long := strings.Repeat("é", ProcessFailureTailBytes) + "\nerror: the last line\n"
	for name, tc := range map[string]struct {
		answer  processAnswer
		code    string
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
