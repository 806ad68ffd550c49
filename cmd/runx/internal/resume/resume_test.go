package resume

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/runxhq/runx/cmd/runx/internal/drive"
	"github.com/runxhq/runx/kernel/agent"
	"github.com/spf13/cobra"
)

// runx resume parses a run id, an optional document and its flags into
// Options, and refuses a wrong command line as a usage error before
// anything runs.
func TestResumeFlags(t *testing.T) {
	d64 := "sha256:" + strings.Repeat("0a", 32)
	f := clitest.Factory("")
	defaults := func() *Options {
		return &Options{Factory: f, RunID: "run_x", Drive: drive.Flags{RoundsPerTurn: agent.DefaultRoundsPerTurn, RoundsPerRun: agent.DefaultRoundsPerRun}}
	}
	clitest.Table(t, func(runF func(*Options) error) *cobra.Command { return New(f, runF) }, defaults, []clitest.Case[Options]{
		{Args: []string{"resume", "run_x"}, Want: func(o *Options) {}},
		{Args: []string{"resume", "run_x", "-"}, Want: func(o *Options) { o.Document = "-" }},
		{Args: []string{"resume", "run_x", "answers.json"}, Want: func(o *Options) { o.Document = "answers.json" }},
		{Args: []string{"resume", "run_x", "--package-digest", "sha256:a"}, Want: func(o *Options) { o.PackageDigest = "sha256:a" }},
		{Args: []string{"resume", "run_x", "--closure-digest", "sha256:b"}, Want: func(o *Options) { o.ClosureDigest = "sha256:b" }},
		{Args: []string{"resume", "run_x", "--json"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"resume", "run_x", "-j"}, Want: func(o *Options) { o.JSON = true }},
		{Args: []string{"resume", "run_x", "--max-spend", "0.10"}, Want: func(o *Options) { _ = o.MaxSpend.Set("0.10") }},
		{Args: []string{"resume", "run_x", "--drive", "--max-rounds", "2", "--max-run-rounds", "4", "--max-turn-tokens", "5", "--max-run-tokens", "6"}, Want: func(o *Options) {
			o.Drive = drive.Flags{Drive: true, RoundsPerTurn: 2, RoundsPerRun: 4, TokensPerTurn: 5, TokensPerRun: 6}
		}},
		{Args: []string{"resume", "run_x", "--approve", "make@sha256:a", "--reason", "I read the argv"}, Want: func(o *Options) {
			o.Decisions, o.Reason = []Decision{{Address: "make", Digest: "sha256:a", Approved: true}}, "I read the argv"
		}},
		{Args: []string{"resume", "run_x", "--decline", "w@sha256:b", "--reason", "not now"}, Want: func(o *Options) {
			o.Decisions, o.Reason = []Decision{{Address: "w", Digest: "sha256:b"}}, "not now"
		}},
		// both, beside a document for other addresses; an address holding @
		// splits at its last one
		{Args: []string{"resume", "run_x", "answers.json", "--decline", "b@x@sha256:b", "--approve", "a@sha256:a", "--reason", "r"}, Want: func(o *Options) {
			o.Document, o.Reason = "answers.json", "r"
			o.Decisions = []Decision{{Address: "a", Digest: "sha256:a", Approved: true}, {Address: "b@x", Digest: "sha256:b"}}
		}},
		{Args: []string{"resume", "run_x", "--answer", "pick@" + d64 + ":channel=email", "--answer", "pick@" + d64 + ":tone=a=b"}, Want: func(o *Options) {
			o.Answers = []Answer{{Address: "pick", Digest: d64, Question: "channel", Option: "email"}, {Address: "pick", Digest: d64, Question: "tone", Option: "a=b"}}
		}},
		// an address or question holding @ or : is read around the digest
		{Args: []string{"resume", "run_x", "--answer", "a@b@" + d64 + ":q:1=x"}, Want: func(o *Options) {
			o.Answers = []Answer{{Address: "a@b", Digest: d64, Question: "q:1", Option: "x"}}
		}},
		// refusals
		{Args: []string{"resume", "run_x", "--answer", "pick@" + d64 + ":channel"}},
		{Args: []string{"resume", "run_x", "--answer", "pick@" + d64 + ":channel="}},
		{Args: []string{"resume", "run_x", "--answer", "pick@" + d64 + ":=email"}},
		{Args: []string{"resume", "run_x", "--answer", "@" + d64 + ":channel=email"}},
		{Args: []string{"resume", "run_x", "--answer", "pick:channel=email"}},
		{Args: []string{"resume", "run_x", "--answer", "pick@sha256:a:channel=email"}},
		{Args: []string{"resume", "run_x", "--answer", "pick@" + d64 + ":channel=email", "--answer", "pick@" + d64 + ":channel=sms"}},
		{Args: []string{"resume", "run_x", "--answer", "pick@" + d64 + ":channel=email", "--answer", "pick@sha256:" + strings.Repeat("1", 64) + ":tone=plain"}},
		{Args: []string{"resume", "run_x", "--answer", "pick@" + d64 + ":channel=email", "--approve", "pick@" + d64, "--reason", "r"}},
		{Args: []string{"resume", "run_x", "--answer", "pick@" + d64 + ":channel=email", "--reason", "r"}},
		{Args: []string{"resume", "run_x", "--approve", "make", "--reason", "r"}},
		{Args: []string{"resume", "run_x", "--approve", "make@", "--reason", "r"}},
		{Args: []string{"resume", "run_x", "--approve", "@sha256:a", "--reason", "r"}},
		{Args: []string{"resume", "run_x", "--approve", "make@sha256:a"}},
		{Args: []string{"resume", "run_x", "--reason", "r"}},
		{Args: []string{"resume", "run_x", "--approve", "make@sha256:a", "--decline", "make@sha256:a", "--reason", "r"}},
		{Args: []string{"resume", "run_x", "--approve", "make@sha256:a", "--approve", "make@sha256:b", "--reason", "r"}},
		{Args: []string{"resume", "run_x", "--approve"}},
		{Args: []string{"resume"}},
		{Args: []string{"resume", "run_x", "-", "extra"}},
		{Args: []string{"resume", "run_x", "--nosuch"}},
		{Args: []string{"resume", "run_x", "--package-digest"}},
		{Args: []string{"resume", "run_x", "--max-rounds", "2"}},
		{Args: []string{"resume", "run_x", "--max-run-tokens", "2"}},
		{Args: []string{"resume", "run_x", "--drive", "--max-run-rounds", "0"}},
		{Args: []string{"resume", "run_x", "--drive", "--max-turn-tokens", "-5"}},
	})
}
