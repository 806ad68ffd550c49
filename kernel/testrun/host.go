package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/runstate"
)

// maxHostRounds bounds how often a test's host answers a paused run.
const maxHostRounds = 64

// hostStandIn answers what a paused run asks, from a test's host: answers
// by step id or by address (an address wins), approvals by address.
type hostStandIn struct {
	host *pkg.TestHost
	used map[string]bool
	// work makes a worked turn's calls through the open turn, returning what
	// went wrong (a refused call, a result its expect does not match).
	work     func(ctx context.Context, r contract.Request, key string, turn *pkg.TestTurn) []string
	failures []string
}

func newHostStandIn(h *pkg.TestHost, work func(context.Context, contract.Request, string, *pkg.TestTurn) []string) *hostStandIn {
	if h == nil {
		h = &pkg.TestHost{}
	}
	return &hostStandIn{host: h, used: map[string]bool{}, work: work}
}

// answer builds the resume document for the requests it can answer. A
// worked turn makes its calls first and is then answered with its output.
func (h *hostStandIn) answer(ctx context.Context, reqs []contract.Request) ([]byte, bool) {
	doc := contract.ResumeDocument{}
	for _, r := range reqs {
		switch r.Kind {
		case contract.RequestAgent, contract.RequestQuestion:
			key, v, ok := h.lookupAnswer(r)
			if !ok && r.Kind == contract.RequestAgent {
				var turn *pkg.TestTurn
				if key, turn, ok = h.lookupTurn(r); ok {
					if h.used["turns:"+key] {
						continue // worked once; the run asks again only if it refused the output
					}
					h.used["turns:"+key] = true
					if failed := h.work(ctx, r, key, turn); len(failed) > 0 {
						h.failures = append(h.failures, failed...)
						continue
					}
					v = turn.Output
				}
			}
			if !ok {
				continue
			}
			raw, err := json.Marshal(v)
			if err != nil {
				continue
			}
			entry := &contract.ResumeEntry{RequestDigest: r.RequestDigest, Value: raw}
			if r.Kind == contract.RequestAgent {
				if doc.Answers == nil {
					doc.Answers = map[string]*contract.ResumeEntry{}
				}
				doc.Answers[r.Address] = entry
			} else {
				if doc.Approvals == nil {
					doc.Approvals = map[string]*contract.ResumeEntry{}
				}
				doc.Approvals[r.Address] = entry
			}
			if !h.used["turns:"+key] {
				h.used["answers:"+key] = true
			}
		case contract.RequestApproval:
			approved, ok := h.host.Approvals[r.Address]
			if !ok {
				continue
			}
			reason := "declined by the test host"
			if approved {
				reason = "approved by the test host"
			}
			if doc.Approvals == nil {
				doc.Approvals = map[string]*contract.ResumeEntry{}
			}
			if runstate.IsRetryRequest(r.Payload) {
				// A write's retry: true sends it again under its key.
				value, _ := json.Marshal(map[string]bool{"retry": approved})
				doc.Approvals[r.Address] = &contract.ResumeEntry{RequestDigest: r.RequestDigest, Value: value}
				h.used["approvals:"+r.Address] = true
				continue
			}
			doc.Approvals[r.Address] = &contract.ResumeEntry{RequestDigest: r.RequestDigest, Approved: &approved, Reason: &reason}
			h.used["approvals:"+r.Address] = true
		}
	}
	if len(doc.Answers)+len(doc.Approvals) == 0 {
		return nil, false
	}
	raw, err := json.Marshal(doc)
	return raw, err == nil
}

// lookupTurn finds a worked turn by address, else by the asking step's id.
func (h *hostStandIn) lookupTurn(r contract.Request) (string, *pkg.TestTurn, bool) {
	if t, ok := h.host.Turns[r.Address]; ok {
		return r.Address, t, true
	}
	local := r.Address
	if i := strings.LastIndex(local, "#"); i >= 0 {
		local = local[i+1:]
	}
	t, ok := h.host.Turns[local]
	return local, t, ok
}

func (h *hostStandIn) lookupAnswer(r contract.Request) (string, any, bool) {
	if v, ok := h.host.Answers[r.Address]; ok {
		return r.Address, v, true
	}
	// By step id: the last segment of the address names the asking step.
	local := r.Address
	if i := strings.LastIndex(local, "#"); i >= 0 {
		local = local[i+1:]
	}
	if v, ok := h.host.Answers[local]; ok {
		return local, v, true
	}
	return "", nil, false
}

// unused names every answer and approval the test supplied that no request
// asked for: a supplied answer must be observable in the run.
func (h *hostStandIn) unused() []string {
	var out []string
	for key := range h.host.Answers {
		if !h.used["answers:"+key] {
			out = append(out, fmt.Sprintf("host.answers.%s was never asked for: every supplied answer must be observable in the run", key))
		}
	}
	for key := range h.host.Approvals {
		if !h.used["approvals:"+key] {
			out = append(out, fmt.Sprintf("host.approvals.%s was never asked for", key))
		}
	}
	for key := range h.host.Turns {
		if !h.used["turns:"+key] {
			out = append(out, fmt.Sprintf("host.turns.%s was never asked for", key))
		}
	}
	sort.Strings(out)
	return out
}
