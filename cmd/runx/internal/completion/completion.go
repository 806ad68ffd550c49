// Package completion is what `runx completion <shell>` offers beyond
// commands and flags: skill refs and their methods for `runx skill`, open
// run ids for `runx resume` and `runx history`, and the pending requests a
// run waits on, as address@digest, for `resume --approve` and `--decline`.
//
// Completion runs on every TAB, so it reads only: skills as `runx list
// skills` finds them, runs through readmodel.Peek (nothing created, repaired or
// written, no plugin started), never the network. It is bounded (MaxEntries
// offers, a deadline) and fails quietly: any error offers nothing, with
// cobra's error directive, and prints no message.
package completion

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/kernel/run/readmodel"
	"github.com/runxhq/runx/kernel/run/runstate"
	"github.com/runxhq/runx/kernel/testrun"
	"github.com/spf13/cobra"
)

// MaxEntries is the most offers one completion returns.
const MaxEntries = 200

// deadline bounds the reads one completion makes.
const deadline = 2 * time.Second

// Register adds the completions to root's skill, resume and history
// commands; a command root does not have is left alone.
func Register(root *cobra.Command, f *cli.Factory) {
	s := &Source{Factory: f}
	for _, c := range root.Commands() {
		switch c.Name() {
		case "skill":
			c.ValidArgsFunction = s.skillArgs
		case "resume":
			c.ValidArgsFunction = s.runArgs
			for _, flag := range []string{"approve", "decline"} {
				_ = c.RegisterFlagCompletionFunc(flag, s.decisionFlag)
			}
			_ = c.RegisterFlagCompletionFunc("answer", s.answerFlag)
		case "history":
			c.ValidArgsFunction = s.runArgs
		}
	}
}

// Source reads what completion offers for one invocation.
type Source struct {
	Factory *cli.Factory
}

// options are the invocation's kernel options with no registry: completion
// never fetches.
func (s *Source) options() run.Options {
	o := s.Factory.Options()
	o.Registry = nil
	return o
}

// peek opens the project's run records to read them only.
func (s *Source) peek() (*readmodel.Peek, error) {
	o, err := run.ResolveOptions(s.options())
	if err != nil {
		return nil, err
	}
	return readmodel.OpenPeek(o.ProjectDir)
}

// Skills offers the skill refs starting with toComplete, or, once it holds
// "#", the methods of the skill before it, each with its description.
func (s *Source) Skills(toComplete string) ([]string, error) {
	loc, err := run.NewLocator(s.options())
	if err != nil {
		return nil, err
	}
	if ref, prefix, ok := strings.Cut(toComplete, "#"); ok {
		p, _, err := loc.Package(ref, "")
		if p == nil {
			return nil, err
		}
		var out []string
		for _, m := range p.Methods {
			if strings.HasPrefix(m.Name, prefix) {
				out = append(out, offer(ref+"#"+m.Name, m.Description))
			}
		}
		return bounded(out), nil
	}
	skills, err := loc.Skills()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sk := range skills {
		if sk.Error == nil && strings.HasPrefix(sk.Ref, toComplete) {
			out = append(out, offer(sk.Ref, sk.Description))
		}
	}
	return bounded(out), nil
}

// Methods offers the methods of the skill ref names, for `runx skill <ref>
// <method>`.
func (s *Source) Methods(ref, toComplete string) ([]string, error) {
	loc, err := run.NewLocator(s.options())
	if err != nil {
		return nil, err
	}
	path, _ := pkg.SplitRef(ref)
	p, _, err := loc.Package(path, "")
	if p == nil {
		return nil, err
	}
	var out []string
	for _, m := range p.Methods {
		if strings.HasPrefix(m.Name, toComplete) {
			out = append(out, offer(m.Name, m.Description))
		}
	}
	return bounded(out), nil
}

// Runs offers the ids of the runs that have not sealed (paused, stopped,
// running), newest first, test runs left out.
func (s *Source) Runs(ctx context.Context, toComplete string) ([]string, error) {
	peek, err := s.peek()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no records yet: no runs
	}
	if err != nil {
		return nil, err
	}
	defer peek.Close()
	open, err := peek.OpenRuns(ctx)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(open, func(i, j int) bool {
		if open[i].UpdatedAt != open[j].UpdatedAt {
			return open[i].UpdatedAt > open[j].UpdatedAt
		}
		return open[i].RunID > open[j].RunID
	})
	var out []string
	for _, r := range open {
		if testrun.IsTestRun(r.RunID) || !strings.HasPrefix(r.RunID, toComplete) {
			continue
		}
		out = append(out, offer(r.RunID, string(r.State)+" "+cli.SkillMethod(r.SkillName, r.Method)))
	}
	return bounded(out), nil
}

// Decisions offers the approvals run runID waits on a person to decide, as
// --approve and --decline take them: address@request_digest.
func (s *Source) Decisions(ctx context.Context, runID, toComplete string) ([]string, error) {
	peek, err := s.peek()
	if err != nil {
		return nil, err
	}
	defer peek.Close()
	waiting, err := peek.Waiting(ctx, runID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range waiting {
		if r.Kind != contract.RequestApproval || runstate.IsRetryRequest(r.Payload) {
			continue
		}
		v := r.Address + "@" + r.RequestDigest
		if strings.HasPrefix(v, toComplete) {
			out = append(out, v)
		}
	}
	return bounded(out), nil
}

// Answers offers the answers run runID's questions take, as --answer
// takes them: address@request_digest:question=option, one per option of
// each question; a question with no options offers its prefix up to the
// "=", for the person to type the rest.
func (s *Source) Answers(ctx context.Context, runID, toComplete string) ([]string, error) {
	peek, err := s.peek()
	if err != nil {
		return nil, err
	}
	defer peek.Close()
	waiting, err := peek.Waiting(ctx, runID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range waiting {
		if r.Kind != contract.RequestQuestion {
			continue
		}
		var p struct {
			Questions []struct {
				ID      string `json:"id"`
				Prompt  string `json:"prompt"`
				Options []struct {
					Label string `json:"label"`
				} `json:"options"`
			} `json:"questions"`
		}
		_ = json.Unmarshal(r.Payload, &p)
		for _, q := range p.Questions {
			prefix := r.Address + "@" + r.RequestDigest + ":" + q.ID + "="
			if len(q.Options) == 0 && strings.HasPrefix(prefix, toComplete) {
				out = append(out, offer(prefix, q.Prompt))
			}
			for _, o := range q.Options {
				if v := prefix + o.Label; strings.HasPrefix(v, toComplete) {
					out = append(out, offer(v, q.Prompt))
				}
			}
		}
	}
	return bounded(out), nil
}

func (s *Source) skillArgs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		out, err := s.Skills(toComplete)
		// A ref ending in "/" may go on (skills/<publisher>/<name>); no
		// space after an offer lets "#method" follow it.
		return answer(out, err, cobra.ShellCompDirectiveNoSpace)
	case 1:
		if strings.Contains(args[0], "#") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return answer(s.Methods(args[0], toComplete))
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

func (s *Source) runArgs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		if cmd.Name() == "resume" && len(args) == 1 {
			// The answers document: a file.
			return nil, cobra.ShellCompDirectiveDefault
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), deadline)
	defer cancel()
	return answer(s.Runs(ctx, toComplete))
}

func (s *Source) decisionFlag(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), deadline)
	defer cancel()
	return answer(s.Decisions(ctx, args[0], toComplete))
}

func (s *Source) answerFlag(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), deadline)
	defer cancel()
	out, err := s.Answers(ctx, args[0], toComplete)
	if offersFreeText(out) {
		// the person types the rest after the "="
		return answer(out, err, cobra.ShellCompDirectiveNoSpace)
	}
	return answer(out, err)
}

// offersFreeText reports whether an offer stops at a free-text question's
// "=", which the shell must not close with a space.
func offersFreeText(out []string) bool {
	for _, o := range out {
		if value, _, _ := strings.Cut(o, "\t"); strings.HasSuffix(value, "=") {
			return true
		}
	}
	return false
}

// answer is cobra's answer for offers read with err: nothing and the error
// directive when the read failed.
func answer(out []string, err error, extra ...cobra.ShellCompDirective) ([]string, cobra.ShellCompDirective) {
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	d := cobra.ShellCompDirectiveNoFileComp
	for _, e := range extra {
		d |= e
	}
	return out, d
}

// offer is one completion with its description on one line, as cobra
// shows it beside the value.
func offer(value, description string) string {
	description = strings.Join(strings.Fields(cli.Visible(description)), " ")
	if description == "" {
		return value
	}
	if r := []rune(description); len(r) > 80 {
		description = string(r[:79]) + "…"
	}
	return value + "\t" + description
}

// bounded keeps the first MaxEntries offers.
func bounded(out []string) []string {
	if len(out) > MaxEntries {
		return out[:MaxEntries]
	}
	return out
}
