package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/runstate"
)

// printPending shows one request the run waits on as a person decides it:
// what exactly would happen (a command's argv and directory, a write's
// unified diff, an operation's input and cost), the digest a decision binds
// and the command that decides it. Text from the run is shown with its
// control characters escaped, so a diff cannot rewrite the screen or hide a
// line.
func printPending(w io.Writer, runID string, r contract.Request) {
	fmt.Fprintf(w, "  waiting %s (%s) %s\n", visible(r.Address), r.Kind, r.RequestDigest)
	if r.Payload == nil {
		size := int64(0)
		if r.PayloadArtifact != nil {
			size = r.PayloadArtifact.Bytes
		}
		fmt.Fprintf(w, "    its payload (%d bytes) is kept apart: runx history %s --payload %s\n", size, runID, gate.ShellQuote([]string{r.Address}))
	} else {
		var p map[string]any
		if json.Unmarshal(r.Payload, &p) != nil {
			p = nil
		}
		describe(w, r, p)
	}
	bound := gate.ShellQuote([]string{r.Address + "@" + r.RequestDigest})
	switch {
	case r.Kind == contract.RequestApproval && !runstate.IsRetryRequest(r.Payload):
		fmt.Fprintf(w, "    approve: runx resume %s --approve %s --reason '<why>'\n", runID, bound)
		fmt.Fprintf(w, "    decline: runx resume %s --decline %s --reason '<why>'\n", runID, bound)
	case r.Kind == contract.RequestQuestion:
		for _, id := range questionIDs(r.Payload) {
			fmt.Fprintf(w, "    answer:  runx resume %s --answer %s\n", runID, gate.ShellQuote([]string{r.Address + "@" + r.RequestDigest + ":" + id + "=<option>"}))
		}
	case r.Kind == contract.RequestWait:
		fmt.Fprintf(w, "    runx settles it: runx resume %s at or after its until\n", runID)
	default:
		fmt.Fprintf(w, "    answer with a document: runx resume %s answers.json (answers_template in runx history %s --json)\n", runID, runID)
	}
}

// describe prints what a request asks, by its payload's shape; a shape it
// does not know is shown whole.
func describe(w io.Writer, r contract.Request, p map[string]any) {
	line := func(label string, v any) {
		fmt.Fprintf(w, "    %-9s %s\n", label+":", visible(text(v)))
	}
	block := func(label, body string) {
		fmt.Fprintf(w, "    %s:\n", label)
		for _, l := range strings.Split(strings.TrimSuffix(visible(body), "\n"), "\n") {
			fmt.Fprintf(w, "      %s\n", l)
		}
	}
	if p == nil {
		block("payload", string(r.Payload))
		return
	}
	shown := false
	if v, ok := p["rule"]; ok {
		line("rule", v)
	}
	if v, ok := p["reason"]; ok {
		line("reason", v)
		shown = true
	}
	if cmd, ok := p["command"].(map[string]any); ok {
		line("argv", cmd["argv"])
		line("dir", cmd["cwd"])
		if env, ok := cmd["environment"].([]any); ok && len(env) > 0 {
			line("env", env)
		}
		shown = true
	}
	if v, ok := p["capability"]; ok {
		line("call", v)
		shown = true
	}
	if v, ok := p["operation"]; ok {
		line("operation", v)
		shown = true
	}
	if s, ok := p["operator_summary"].(map[string]any); ok {
		line("summary", s["text"])
		if q, ok := s["quoted_usd_micro"]; ok {
			line("cost", fmt.Sprintf("%s micro-USD quoted", text(q)))
		}
		if pay, ok := s["payment"]; ok {
			line("moves", pay)
		}
	}
	if v, ok := p["input"]; ok {
		block("input", indent(v))
	}
	if e, ok := p["edit"].(map[string]any); ok {
		if ref, ok := e["refused"].(map[string]any); ok {
			line("preview", fmt.Sprintf("refused: %s [%s]", text(ref["message"]), text(ref["code"])))
		}
		changes, _ := e["changes"].([]any)
		for _, c := range changes {
			ch, _ := c.(map[string]any)
			line(text(ch["op"]), ch["path"])
			if d, ok := ch["diff"].(string); ok {
				block("diff", d)
			}
		}
	}
	if qs, ok := p["questions"].([]any); ok {
		for _, q := range qs {
			q, _ := q.(map[string]any)
			var labels []string
			opts, _ := q["options"].([]any)
			for _, o := range opts {
				o, _ := o.(map[string]any)
				labels = append(labels, text(o["label"]))
			}
			line("question", fmt.Sprintf("%s: %s", text(q["id"]), text(q["prompt"])))
			if len(labels) > 0 {
				line("options", strings.Join(labels, " | "))
			}
			if q["free_text"] == true {
				line("or", "free text (in an answers document)")
			}
		}
		shown = true
	}
	if v, ok := p["task"]; ok {
		line("task", v)
		shown = true
	}
	if v, ok := p["until"]; ok {
		line("until", v)
		shown = true
	}
	if !shown {
		block("payload", indent(p))
	}
}

// questionIDs are the ids of the questions a question request asks.
func questionIDs(payload json.RawMessage) []string {
	var p struct {
		Questions []struct {
			ID string `json:"id"`
		} `json:"questions"`
	}
	_ = json.Unmarshal(payload, &p)
	ids := make([]string, 0, len(p.Questions))
	for _, q := range p.Questions {
		ids = append(ids, visible(q.ID))
	}
	return ids
}

// text is a payload value as one line: a string as it is, anything else
// as compact JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// indent is a payload value as indented JSON.
func indent(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return b.String()
}

// visible is s fit for a terminal (cli.Visible).
func visible(s string) string { return cli.Visible(s) }
