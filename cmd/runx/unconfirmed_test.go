package main

import (
	"strings"
	"testing"
)

// An effect happens once, or the run waits: a capability that declares
// itself idempotent is sent again as it was, and when its plugin answers
// effect_unconfirmed (it cannot tell whether an earlier send acted, as
// process.start answers for a start its supervisor never confirmed), the
// step waits at its retry instead of failing the run. A person's
// {"retry": true} sends a new attempt, under a call id of its own; the run
// completes with that attempt's answer.
func TestUnconfirmedAnswerWaitsAtRetry(t *testing.T) {
	w := newWorkspace(t, skillFiles("app", `minimum_runx: 0.1.0
methods:
  go:
    steps:
      - id: act
        tool: foreign/confirm
        inputs: {}
`))
	pinPlugin(t, w, "foreign")
	paused, code := w.run("", nil, "skill", "./app", "--json")
	runID := str(paused, "run_id")
	if str(paused, "status") != "needs_approval" || str(paused, "requests", "0", "address") != "act/retry" {
		t.Fatalf("an unconfirmed answer waits at the step's retry: %d %v", code, paused)
	}
	if !strings.Contains(str(paused, "requests", "0", "payload", "why"), "effect_unconfirmed") {
		t.Fatalf("the retry says why it waits: %v", get(paused, "requests", "0"))
	}
	// Resumed with no decision, it waits again and sends nothing.
	again, _ := w.run("{}", nil, "resume", runID, "-", "--json")
	if str(again, "requests", "0", "address") != "act/retry" {
		t.Fatalf("a resume with no decision waits at the retry again: %v", again)
	}
	yes := answerDoc("approvals", "act/retry", str(again, "requests", "0", "request_digest"), `"value":{"retry":true}`)
	done, code := w.run(yes, nil, "resume", runID, "-", "--json")
	if code != 0 || str(done, "outcome") != "completed" || get(done, "result", "attempt") != float64(2) {
		t.Fatalf("a person's retry sends attempt 2, which completes the run: %d %v", code, done)
	}
}
