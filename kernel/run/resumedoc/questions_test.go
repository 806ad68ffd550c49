package resumedoc

import (
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// TestCheckQuestions holds a person's answers to what the ask put: each
// wrong answer is refused resume_answer_invalid, and the answers the ask
// allows pass.
func TestCheckQuestions(t *testing.T) {
	asked := `{"questions":[
		{"id":"pick","prompt":"Which?","options":[{"label":"a"},{"label":"b"}]},
		{"id":"why","prompt":"Why?","free_text":true,"required":false},
		{"id":"note","prompt":"Anything?","options":[{"label":"yes"}],"free_text":true,"required":false}
	]}`
	for _, c := range []struct {
		name, value string
		ok          bool
	}{
		{"an option", `{"pick":{"option":"a"}}`, true},
		{"free text where allowed", `{"pick":{"option":"b"},"why":{"text":"because"},"note":{"text":"no"}}`, true},
		{"not an object", `["a"]`, false},
		{"no such question", `{"pick":{"option":"a"},"other":{"option":"a"}}`, false},
		{"neither option nor text", `{"pick":{}}`, false},
		{"both option and text", `{"pick":{"option":"a","text":"a"}}`, false},
		{"a field beside them", `{"pick":{"option":"a","extra":1}}`, false},
		{"an option not offered", `{"pick":{"option":"c"}}`, false},
		{"free text where only options are", `{"pick":{"text":"a"}}`, false},
		{"a required question unanswered", `{"why":{"text":"x"}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckQuestions("ask", []byte(asked), []byte(c.value))
			if c.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if code := contract.CodeOf(err); code != errcode.ResumeAnswerInvalid {
				t.Fatalf("code %q (%v), want %s", code, err, errcode.ResumeAnswerInvalid)
			}
		})
	}
}
