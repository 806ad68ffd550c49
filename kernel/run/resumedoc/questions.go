package resumedoc

import (
	"bytes"
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

type questionAnswer struct {
	Option *string `json:"option,omitempty"`
	Text   *string `json:"text,omitempty"`
}

// CheckQuestions holds a person's answers to the questions an ask put: each
// names one of its question's options or, where free text is allowed, the
// person's own words, and every required question is answered.
func CheckQuestions(addr string, payload, value json.RawMessage) error {
	var asked struct {
		Questions []*pkg.Question `json:"questions"`
	}
	if err := json.Unmarshal(payload, &asked); err != nil {
		return err
	}
	var answers map[string]json.RawMessage
	if err := json.Unmarshal(value, &answers); err != nil {
		return contract.Errorf(errcode.ResumeAnswerInvalid, "%s: answers to questions are an object by question id", addr)
	}
	byID := map[string]*pkg.Question{}
	for _, q := range asked.Questions {
		byID[q.ID] = q
	}
	for id, raw := range answers {
		q, ok := byID[id]
		if !ok {
			return contract.Errorf(errcode.ResumeAnswerInvalid, "%s: no question %q was asked", addr, id)
		}
		if _, err := StrictObject(raw, "the answer to "+id, []string{"option", "text"}); err != nil {
			return contract.Errorf(errcode.ResumeAnswerInvalid, "%s: %v", addr, err)
		}
		var a questionAnswer
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil || (a.Option == nil) == (a.Text == nil) {
			return contract.Errorf(errcode.ResumeAnswerInvalid, "%s: question %s takes exactly one of option or text", addr, id)
		}
		if a.Option != nil {
			found := false
			for _, o := range q.Options {
				found = found || o.Label == *a.Option
			}
			if !found {
				return contract.Errorf(errcode.ResumeAnswerInvalid, "%s: %q is not an option of question %s", addr, *a.Option, id)
			}
		}
		if a.Text != nil && len(q.Options) > 0 && !q.FreeText {
			return contract.Errorf(errcode.ResumeAnswerInvalid, "%s: question %s takes one of its options, not free text", addr, id)
		}
	}
	for _, q := range asked.Questions {
		required := q.Required == nil || *q.Required
		if _, ok := answers[q.ID]; required && !ok {
			return contract.Errorf(errcode.ResumeAnswerInvalid, "%s: required question %s is not answered", addr, q.ID)
		}
	}
	return nil
}
