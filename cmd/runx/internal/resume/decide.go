package resume

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run/resumedoc"
)

// parseDecisions reads --approve and --decline (address@digest each) and
// --reason into opts. A decision without its digest, an address decided
// twice, a decision without --reason or a --reason deciding nothing is a
// wrong command line.
func (opts *Options) parseDecisions(approve, decline []string, reasonGiven bool) error {
	seen := map[string]bool{}
	for _, group := range []struct {
		flag     string
		values   []string
		approved bool
	}{{"--approve", approve, true}, {"--decline", decline, false}} {
		for _, v := range group.values {
			at := strings.LastIndex(v, "@")
			if at <= 0 || at == len(v)-1 {
				return cli.Usagef("%s takes address@digest, the request's address and the request_digest runx history <run-id> shows for it; got %q", group.flag, shown(v))
			}
			addr, digest := v[:at], v[at+1:]
			if seen[addr] {
				return cli.Usagef("%s is decided more than once on the command line; decide it once", shown(addr))
			}
			seen[addr] = true
			opts.Decisions = append(opts.Decisions, Decision{Address: addr, Digest: digest, Approved: group.approved})
		}
	}
	if len(opts.Decisions) > 0 && !reasonGiven {
		return cli.Usagef("--approve and --decline need --reason: say why, it is recorded in the run and its receipt")
	}
	if len(opts.Decisions) == 0 && reasonGiven {
		return cli.Usagef("--reason goes with --approve or --decline")
	}
	return nil
}

// digestInAnswer finds the request digest in an --answer value: runx's
// request digests are sha256 and hex, so the address before it and the
// question after it may hold any character but "=".
var digestInAnswer = regexp.MustCompile(`@(sha256:[0-9a-f]{64}):`)

// parseAnswers reads --answer (address@digest:question=option each) into
// opts. A value without its digest, question or option, a question
// answered twice, one request named with two digests, or an address also
// approved or declined is a wrong command line.
func (opts *Options) parseAnswers(values []string) error {
	decided := map[string]bool{}
	for _, d := range opts.Decisions {
		decided[d.Address] = true
	}
	digests := map[string]string{}
	answered := map[[2]string]bool{}
	for _, v := range values {
		head, option, ok := strings.Cut(v, "=")
		loc := digestInAnswer.FindAllStringSubmatchIndex(head, -1)
		if !ok || option == "" || len(loc) == 0 {
			return cli.Usagef("--answer takes address@digest:question=option, the ask's address and the request_digest runx history <run-id> shows for it; got %q", shown(v))
		}
		last := loc[len(loc)-1]
		a := Answer{Address: head[:last[0]], Digest: head[last[2]:last[3]], Question: head[last[1]:], Option: option}
		if a.Address == "" || a.Question == "" {
			return cli.Usagef("--answer takes address@digest:question=option; got %q", shown(v))
		}
		if decided[a.Address] {
			return cli.Usagef("%s is both approved or declined and answered on the command line; decide it once", shown(a.Address))
		}
		if d, ok := digests[a.Address]; ok && d != a.Digest {
			return cli.Usagef("%s is answered with two request digests; answer the request that was shown", shown(a.Address))
		}
		digests[a.Address] = a.Digest
		if answered[[2]string{a.Address, a.Question}] {
			return cli.Usagef("question %s of %s is answered more than once; answer it once", shown(a.Question), shown(a.Address))
		}
		answered[[2]string{a.Address, a.Question}] = true
		opts.Answers = append(opts.Answers, a)
	}
	return nil
}

// withDecisions adds the command line's decisions to the document read
// from a file (or to an empty one) as the approvals entries a hand-written
// document would carry, and returns the document the run admits. The file
// is read as strictly as any resume document; an address both decide is a
// wrong command line.
func (opts *Options) withDecisions(raw []byte) ([]byte, error) {
	if len(opts.Decisions) == 0 && len(opts.Answers) == 0 {
		return raw, nil
	}
	doc, err := resumedoc.Parse(raw)
	if err != nil {
		return nil, err
	}
	if doc.Approvals == nil {
		doc.Approvals = map[string]*contract.ResumeEntry{}
	}
	for _, d := range opts.Decisions {
		_, inApprovals := doc.Approvals[d.Address]
		_, inAnswers := doc.Answers[d.Address]
		if inApprovals || inAnswers {
			return nil, cli.Usagef("%s is decided both on the command line and in %s; decide it once", shown(d.Address), opts.Document)
		}
		approved, reason := d.Approved, opts.Reason
		doc.Approvals[d.Address] = &contract.ResumeEntry{RequestDigest: d.Digest, Approved: &approved, Reason: &reason}
	}
	// An ask's answers are one entry: its questions' answers by question id.
	values := map[string]map[string]map[string]string{}
	var order []Answer
	for _, a := range opts.Answers {
		if values[a.Address] == nil {
			_, inApprovals := doc.Approvals[a.Address]
			_, inAnswers := doc.Answers[a.Address]
			if inApprovals || inAnswers {
				return nil, cli.Usagef("%s is answered both on the command line and in %s; answer it once", shown(a.Address), opts.Document)
			}
			values[a.Address] = map[string]map[string]string{}
			order = append(order, a)
		}
		values[a.Address][a.Question] = map[string]string{"option": a.Option}
	}
	for _, a := range order {
		value, err := json.Marshal(values[a.Address])
		if err != nil {
			return nil, err
		}
		doc.Approvals[a.Address] = &contract.ResumeEntry{RequestDigest: a.Digest, Value: value}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	// Read back as the run will read it: a blank or oversized --reason is
	// refused with the document's own codes.
	if _, err := resumedoc.Parse(out); err != nil {
		return nil, err
	}
	return out, nil
}

// shown is a command-line value as a message may quote it: at most 128
// bytes of it.
func shown(v string) string {
	if len(v) <= 128 {
		return v
	}
	cut := 128
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
}
