package readmodel

import (
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run/runstate"
)

// AnswersTemplate is a resume document already bound to every request.
func AnswersTemplate(reqs []contract.Request) *contract.ResumeDocument {
	doc := &contract.ResumeDocument{}
	for _, r := range reqs {
		switch r.Kind {
		case contract.RequestAgent:
			if doc.Answers == nil {
				doc.Answers = map[string]*contract.ResumeEntry{}
			}
			doc.Answers[r.Address] = &contract.ResumeEntry{RequestDigest: r.RequestDigest, Value: json.RawMessage("{}")}
		case contract.RequestApproval:
			if doc.Approvals == nil {
				doc.Approvals = map[string]*contract.ResumeEntry{}
			}
			if runstate.IsRetryRequest(r.Payload) {
				doc.Approvals[r.Address] = &contract.ResumeEntry{RequestDigest: r.RequestDigest, Value: json.RawMessage(`{"retry":false}`)}
				continue
			}
			approved, reason := false, ""
			doc.Approvals[r.Address] = &contract.ResumeEntry{RequestDigest: r.RequestDigest, Approved: &approved, Reason: &reason}
		case contract.RequestQuestion:
			if doc.Approvals == nil {
				doc.Approvals = map[string]*contract.ResumeEntry{}
			}
			doc.Approvals[r.Address] = &contract.ResumeEntry{RequestDigest: r.RequestDigest, Value: json.RawMessage("{}")}
		}
	}
	return doc
}
