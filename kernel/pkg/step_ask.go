package pkg

import "fmt"

// decodeAsk reads an explicit human gate: a reason (a yes or no) or one to
// three questions, each with at most four options, the recommended first.
func decodeAsk(d decoder, e *entry, label string) (*AskStep, error) {
	f, err := d.object(e.value, label+" ask", "reason", "questions")
	if err != nil {
		return nil, err
	}
	a := &AskStep{}
	switch {
	case f.has("reason") && f.has("questions"):
		return nil, d.fail(e.value.pos, "%s ask takes a reason (a yes or no) or questions, not both", label)
	case f.has("reason"):
		a.Reason, err = d.nonEmpty(f, "reason", label+" ask reason")
		return a, err
	case !f.has("questions"):
		return nil, d.fail(e.value.pos, "%s ask needs a reason or questions", label)
	}
	qe := f.get("questions")
	if qe.value.kind != seqNode || len(qe.value.items) < 1 || len(qe.value.items) > 3 {
		return nil, d.fail(qe.value.pos, "%s ask questions must be a list of one to three questions", label)
	}
	ids := map[string]bool{}
	for i, qn := range qe.value.items {
		q, err := decodeQuestion(d, qn, fmt.Sprintf("%s question %d", label, i+1))
		if err != nil {
			return nil, err
		}
		if ids[q.ID] {
			return nil, d.fail(qn.pos, "%s asks question %q twice", label, q.ID)
		}
		ids[q.ID] = true
		a.Questions = append(a.Questions, q)
	}
	return a, nil
}

func decodeQuestion(d decoder, n *node, label string) (*Question, error) {
	f, err := d.object(n, label, "id", "prompt", "options", "free_text", "required")
	if err != nil {
		return nil, err
	}
	q := &Question{}
	if q.ID, err = d.nonEmpty(f, "id", label+" id"); err != nil {
		return nil, err
	}
	if q.Prompt, err = d.nonEmpty(f, "prompt", label+" prompt"); err != nil {
		return nil, err
	}
	if q.ID == "" || q.Prompt == "" {
		return nil, d.fail(n.pos, "%s needs an id and a prompt", label)
	}
	if e := f.get("free_text"); e != nil {
		if q.FreeText, err = d.boolean(e, label+" free_text"); err != nil {
			return nil, err
		}
	}
	if e := f.get("required"); e != nil {
		b, err := d.boolean(e, label+" required")
		if err != nil {
			return nil, err
		}
		q.Required = &b
	}
	if e := f.get("options"); e != nil {
		if e.value.kind != seqNode || len(e.value.items) > 4 {
			return nil, d.fail(e.value.pos, "%s options must be a list of at most four options", label)
		}
		for i, on := range e.value.items {
			of, err := d.object(on, fmt.Sprintf("%s option %d", label, i+1), "label", "detail")
			if err != nil {
				return nil, err
			}
			o := &QuestionOption{}
			if o.Label, err = d.nonEmpty(of, "label", label+" option label"); err != nil {
				return nil, err
			}
			if o.Label == "" {
				return nil, d.fail(on.pos, "%s option %d needs a label", label, i+1)
			}
			if o.Detail, err = d.text(of, "detail", label+" option detail"); err != nil {
				return nil, err
			}
			q.Options = append(q.Options, o)
		}
	}
	return q, nil
}
