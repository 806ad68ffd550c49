package root

import (
	"bytes"
	"strings"
	"syscall"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/sdk/errcode"
)

// An argument that names no subcommand of a command that only groups others
// is a usage error (exit 2) at every level, not the group's help and exit 0.
func TestUnknownSubcommandIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("RUNX_HOME", dir+"/home")
	for _, args := range [][]string{
		{"nosuch"},
		{"tool", "nosuch"},
		{"connector", "nosuch"},
		{"secret", "nosuch"},
		{"config", "nosuch"},
		{"data", "nosuch"},
		{"process", "nosuch"},
		{"authority", "nosuch"},
		{"plugin", "nosuch"},
	} {
		var out, errOut bytes.Buffer
		code := Main(args, &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errOut}, nil, datasource.LocalStore{}, nil)
		if code != cli.ExitUsage || !strings.Contains(errOut.String(), `unknown command "nosuch"`) || !strings.Contains(errOut.String(), "[usage_error]") {
			t.Errorf("runx %s: exit %d, stderr %q; want exit 2 and an unknown command usage_error", strings.Join(args, " "), code, errOut.String())
		}
	}
	var out bytes.Buffer
	if code := Main([]string{"tool", "nosuch", "--json"}, &cli.IO{In: strings.NewReader(""), Out: &out, Err: &out}, nil, datasource.LocalStore{}, nil); code != cli.ExitUsage || !strings.Contains(out.String(), `"code": "usage_error"`) {
		t.Errorf("runx tool nosuch --json: exit %d, %s", code, out.String())
	}
	// A group named alone still shows its commands.
	out.Reset()
	if code := Main([]string{"tool"}, &cli.IO{In: strings.NewReader(""), Out: &out, Err: &out}, nil, datasource.LocalStore{}, nil); code != cli.ExitOK || !strings.Contains(out.String(), "inspect") {
		t.Errorf("runx tool: exit %d, %s", code, out.String())
	}
}

// A stop that lands before runx drove any run says so: no step of a run
// ran and there is no run to resume (it said "a run it started stays where
// it was", naming a run that does not exist). One that lands while a run is
// driven names the run and the command that continues it.
func TestInterruptedSaysWhatItLeaves(t *testing.T) {
	before := interruptedError(syscall.SIGINT, "")
	if before.Code != errcode.Interrupted || !strings.Contains(before.Message, "before it drove any run") || strings.Contains(before.Message, "stays where it was") || strings.Contains(before.Message, "resume") || before.Detail != nil {
		t.Fatalf("before any run: %+v", before)
	}
	during := interruptedError(syscall.SIGTERM, "run_x")
	detail, _ := during.Detail.(map[string]any)
	if during.Code != errcode.Interrupted || !strings.Contains(during.Message, "run run_x stays where it was") || detail["resume"] != "runx resume run_x" {
		t.Fatalf("during a run: %+v", during)
	}
}

// runx help run-yaml prints the key reference, the same text as
// docs/run-yaml.md's table, and the root's help lists it as a topic.
func TestHelpRunYAML(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("RUNX_HOME", dir+"/home")
	var out, errOut bytes.Buffer
	code := Main([]string{"help", "run-yaml"}, &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errOut}, nil, datasource.LocalStore{}, nil)
	if code != cli.ExitOK || !strings.Contains(out.String(), "| `default_method` |") || !strings.Contains(out.String(), "### step of method") {
		t.Fatalf("runx help run-yaml: exit %d, stdout %.300q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := Main([]string{"--help"}, &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errOut}, nil, datasource.LocalStore{}, nil); code != cli.ExitOK || !strings.Contains(out.String(), "run-yaml") {
		t.Errorf("runx --help: exit %d, does not list run-yaml: %s", code, out.String())
	}
	out.Reset()
	code = Main([]string{"help", "authority-document"}, &cli.IO{In: strings.NewReader(""), Out: &out, Err: &errOut}, nil, datasource.LocalStore{}, nil)
	if code != cli.ExitOK || !strings.Contains(out.String(), "| `standing_approvals[].edits.paths` |") {
		t.Fatalf("runx help authority-document: exit %d, stdout %.300q, stderr %q", code, out.String(), errOut.String())
	}
}
