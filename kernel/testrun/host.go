package testrun

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
)

// maxHostRounds bounds how often a test's host answers a paused run.
const maxHostRounds = 64

// hostStandIn answers what a paused run asks, from a test's host: answers
// by step id or by address (an address wins), approvals by address.
type hostStandIn struct {
	host *pkg.TestHost
	used map[string]bool
}

func newHostStandIn(h *pkg.TestHost) *hostStandIn {
	if h == nil {
		h = &pkg.TestHost{}
	}
	return &hostStandIn{host: h, used: map[string]bool{}}
}

// answer builds the resume document for the requests it can answer.
func (h *hostStandIn) answer(reqs []contract.Request) ([]byte, bool) {
	doc := contract.ResumeDocument{}
	for _, r := range reqs {
		switch r.Kind {
		case contract.RequestAgent, contract.RequestQuestion:
			key, v, ok := h.lookupAnswer(r)
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
			h.used["answers:"+key] = true
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
	sort.Strings(out)
	return out
}
