package pluginpin

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx plugin pin takes exactly one plugin name, and --json.
func TestPinFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *PinOptions { return &PinOptions{Factory: f, Name: "echo"} }
	clitest.Table(t, func(runF func(*PinOptions) error) *cobra.Command { return NewPin(f, runF) }, defaults, []clitest.Case[PinOptions]{
		{Args: []string{"pin", "echo"}, Want: func(o *PinOptions) {}},
		{Args: []string{"pin", "echo", "--json"}, Want: func(o *PinOptions) { o.JSON = true }},
		{Args: []string{"pin", "echo", "-j"}, Want: func(o *PinOptions) { o.JSON = true }},
		{Args: []string{"pin"}},
		{Args: []string{"pin", "echo", "notes"}},
		{Args: []string{"pin", "echo", "--nosuch"}},
	})
}
