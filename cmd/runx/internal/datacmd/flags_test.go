package datacmd

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx data migrate takes no argument, only its flags. (Leaving out
// --database or --source is refused when it runs: TestMigrateUsage.)
func TestMigrateFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *MigrateOptions { return &MigrateOptions{Factory: f} }
	clitest.Table(t, func(runF func(*MigrateOptions) error) *cobra.Command { return NewMigrate(f, runF) }, defaults, []clitest.Case[MigrateOptions]{
		{Args: []string{"migrate"}, Want: func(o *MigrateOptions) {}},
		{Args: []string{"migrate", "--database", "events.sqlite", "--source", "tenant://x/events"}, Want: func(o *MigrateOptions) {
			o.Database, o.Source = "events.sqlite", "tenant://x/events"
		}},
		{Args: []string{"migrate", "--backup", "b.sqlite"}, Want: func(o *MigrateOptions) { o.Backup = "b.sqlite" }},
		{Args: []string{"migrate", "--json"}, Want: func(o *MigrateOptions) { o.JSON = true }},
		{Args: []string{"migrate", "-j"}, Want: func(o *MigrateOptions) { o.JSON = true }},
		{Args: []string{"migrate", "events.sqlite"}},
		{Args: []string{"migrate", "--database"}},
		{Args: []string{"migrate", "--nosuch"}},
	})
}
