package tool

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx tool inspect takes exactly one capability id, and --json.
func TestInspectFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *InspectOptions { return &InspectOptions{Factory: f, ID: "fs.read"} }
	clitest.Table(t, func(runF func(*InspectOptions) error) *cobra.Command { return NewInspect(f, runF) }, defaults, []clitest.Case[InspectOptions]{
		{Args: []string{"inspect", "fs.read"}, Want: func(o *InspectOptions) {}},
		{Args: []string{"inspect", "fs.read", "--json"}, Want: func(o *InspectOptions) { o.JSON = true }},
		{Args: []string{"inspect", "-j", "fs.read"}, Want: func(o *InspectOptions) { o.JSON = true }},
		{Args: []string{"inspect"}},
		{Args: []string{"inspect", "fs.read", "fs.write"}},
		{Args: []string{"inspect", "fs.read", "--nosuch"}},
	})
}
