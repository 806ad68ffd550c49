package conformance_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/conformance"
)

// badModeEnv selects the rule testdata/bad breaks when this test binary
// runs the suite against it as a child.
const badModeEnv = "RUNX_CONFORMANCE_BAD_MODE"

// The suite notices each broken rule: it runs against a plugin breaking
// one, in a child test process, and must fail naming it.
func TestSuiteCatchesViolations(t *testing.T) {
	for mode, want := range map[string]string{
		"badinfo": `capability id "other.call" is not bad.<name>`,
		"stdout":  "the plugin wrote to os.Stdout",
		"leak":    "the answer holds the planted credential",
		"untyped": "without a snake_case code and a message",
	} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteAgainstABadPlugin$", "-test.v")
			cmd.Env = append(os.Environ(), badModeEnv+"="+mode, binEnv+"="+bin)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a plugin that breaks %s:\n%s", mode, out)
			}
			if !strings.Contains(string(out), want) {
				t.Fatalf("the suite failed without saying %q:\n%s", want, out)
			}
		})
	}
}

// TestSuiteAgainstABadPlugin is the child of TestSuiteCatchesViolations; on
// its own it has nothing to check.
func TestSuiteAgainstABadPlugin(t *testing.T) {
	mode := os.Getenv(badModeEnv)
	if mode == "" {
		t.Skip("runs only as TestSuiteCatchesViolations' child")
	}
	conformance.RunPlugin(t, conformance.Binary{Path: filepath.Join(bin, "runx-plugin-bad"), Env: []string{"BAD_MODE=" + mode}})
}
