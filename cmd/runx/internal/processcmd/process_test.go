package processcmd

import (
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// runx process list takes no argument, --actor and --json.
func TestListFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *ListOptions { return &ListOptions{Factory: f} }
	clitest.Table(t, func(runF func(*ListOptions) error) *cobra.Command { return NewList(f, runF) }, defaults, []clitest.Case[ListOptions]{
		{Args: []string{"list"}, Want: func(o *ListOptions) {}},
		{Args: []string{"list", "--actor", "agent"}, Want: func(o *ListOptions) { o.Actor = "agent" }},
		{Args: []string{"list", "-j"}, Want: func(o *ListOptions) { o.JSON = true }},
		{Args: []string{"list", "proc_1"}},
		{Args: []string{"list", "--actor"}},
		{Args: []string{"list", "--nosuch"}},
	})
}

// runx process read takes exactly one process id, --after, --max-bytes and
// --json.
func TestReadFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *ReadOptions { return &ReadOptions{Factory: f, ProcessID: "proc_1"} }
	clitest.Table(t, func(runF func(*ReadOptions) error) *cobra.Command { return NewRead(f, runF) }, defaults, []clitest.Case[ReadOptions]{
		{Args: []string{"read", "proc_1"}, Want: func(o *ReadOptions) {}},
		{Args: []string{"read", "proc_1", "--after", "c9"}, Want: func(o *ReadOptions) { o.After = "c9" }},
		{Args: []string{"read", "proc_1", "--max-bytes", "1024"}, Want: func(o *ReadOptions) { o.MaxBytes = 1024 }},
		{Args: []string{"read", "proc_1", "--json"}, Want: func(o *ReadOptions) { o.JSON = true }},
		{Args: []string{"read"}},
		{Args: []string{"read", "proc_1", "proc_2"}},
		{Args: []string{"read", "proc_1", "--max-bytes", "lots"}},
		{Args: []string{"read", "proc_1", "--nosuch"}},
	})
}

// runx process stop takes exactly one process id, and --json.
func TestStopFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *StopOptions { return &StopOptions{Factory: f, ProcessID: "proc_1"} }
	clitest.Table(t, func(runF func(*StopOptions) error) *cobra.Command { return NewStop(f, runF) }, defaults, []clitest.Case[StopOptions]{
		{Args: []string{"stop", "proc_1"}, Want: func(o *StopOptions) {}},
		{Args: []string{"stop", "proc_1", "-j"}, Want: func(o *StopOptions) { o.JSON = true }},
		{Args: []string{"stop"}},
		{Args: []string{"stop", "proc_1", "proc_2"}},
		{Args: []string{"stop", "proc_1", "--nosuch"}},
	})
}
