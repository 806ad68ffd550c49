package root

import (
	"bytes"
	"strings"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/datasource"
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
