package version

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	sdk "github.com/runxhq/runx/sdk/plugin"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx version takes no argument, only --json.
func TestVersionFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *Options { return &Options{Factory: f} }
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"version"}, Want: func(o *Options) {}},
		{Args: []string{"version", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"version", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"version", "extra"}},
		{Args: []string{"version", "--nosuch"}},
	})
}

// runVersion runs `runx version args...` through the command as the root
// wires it, with the build's stamps as info gives them, and returns stdout.
func runVersion(t *testing.T, info *debug.BuildInfo, args ...string) string {
	t.Helper()
	saved := readBuildInfo
	readBuildInfo = func() (*debug.BuildInfo, bool) { return info, info != nil }
	t.Cleanup(func() { readBuildInfo = saved })
	f := clitest.Factory("")
	if err := clitest.Exec(New(f, nil), append([]string{"version"}, args...)...); err != nil {
		t.Fatal(err)
	}
	return f.IO.Out.(*bytes.Buffer).String()
}

var stamped = &debug.BuildInfo{
	Main: debug.Module{Path: "github.com/runxhq/runx", Version: "v0.1.0"},
	Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-12-03T17:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	},
}

// runx version names the commit, its date and the plugin protocol the host
// negotiates, in both forms (issue 27).
func TestVersionNamesCommitDateProtocol(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(runVersion(t, stamped, "--json")), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"commit":          "0123456789abcdef0123456789abcdef01234567",
		"commit_modified": true,
		"build_date":      "2026-12-03T17:00:00Z",
		"module_version":  "v0.1.0",
		"plugin_protocol": float64(sdk.ProtocolVersion),
		"runx_version":    cli.Version,
	}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("--json %s = %v, want %v", k, doc[k], v)
		}
	}
	human := runVersion(t, stamped)
	for _, s := range []string{"runx " + cli.Version, "0123456789abcdef0123456789abcdef01234567+modified", "2026-12-03T17:00:00Z", fmt.Sprintf("runx.plugin.v%d", sdk.ProtocolVersion)} {
		if !strings.Contains(human, s) {
			t.Errorf("human output lacks %q:\n%s", s, human)
		}
	}
}

// A build without version-control stamps (go run, -buildvcs=false) says
// "unknown" rather than printing nothing or a made-up value.
func TestVersionUnstampedSaysUnknown(t *testing.T) {
	for _, info := range []*debug.BuildInfo{nil, {Main: debug.Module{Path: "github.com/runxhq/runx"}}} {
		var doc map[string]any
		if err := json.Unmarshal([]byte(runVersion(t, info, "-j")), &doc); err != nil {
			t.Fatal(err)
		}
		if doc["commit"] != Unknown || doc["build_date"] != Unknown || doc["module_version"] != Unknown || doc["commit_modified"] != false {
			t.Errorf("unstamped build: %v", doc)
		}
		if human := runVersion(t, info); !strings.Contains(human, "commit:          unknown") || !strings.Contains(human, "build date:      unknown") {
			t.Errorf("unstamped human output:\n%s", human)
		}
	}
}
