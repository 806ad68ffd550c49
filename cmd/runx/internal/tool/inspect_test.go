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

// runx tool list takes no argument, and --json.
func TestListFlags(t *testing.T) {
	f := clitest.Factory("")
	defaults := func() *ListOptions { return &ListOptions{Factory: f} }
	clitest.Table(t, func(runF func(*ListOptions) error) *cobra.Command { return NewList(f, runF) }, defaults, []clitest.Case[ListOptions]{
		{Args: []string{"list"}, Want: func(o *ListOptions) {}},
		{Args: []string{"list", "--json"}, Want: func(o *ListOptions) { o.JSON = true }},
		{Args: []string{"list", "fs.read"}},
		{Args: []string{"list", "--nosuch"}},
	})
}

// A table shows a summary's first sentence; one with no sentence break is
// shown whole.
func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Read one file. Bounded.":     "Read one file.",
		"List a directory":            "List a directory",
		"Version 1.2 is fine. Again.": "Version 1.2 is fine.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
