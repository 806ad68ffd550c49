package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Each dialect's stand-in, reached as a built-in provider with its endpoint
// moved to the local server, works a turn that calls a tool then completes.
func TestDriveEachDialect(t *testing.T) {
	for _, tc := range []struct {
		provider, dialect, keyVar, path, auth string
	}{
		{"anthropic", "anthropic_messages", "ANTHROPIC_API_KEY", "/v1/messages", "X-Api-Key"},
		{"openai", "openai_responses", "OPENAI_API_KEY", "/v1/responses", "Authorization"},
		{"gemini", "gemini", "GEMINI_API_KEY", "/v1/models/stand-in-model:streamGenerateContent?alt=sse", "X-Goog-Api-Key"},
		{"local", "chat_completions", "RUNX_AGENT_API_KEY", "/v1/chat/completions", "Authorization"},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			s := newProviderStandIn(t, tc.dialect, func(n int, body map[string]any) standInAnswer {
				if n == 0 {
					return standInAnswer{text: "Reading.", calls: [][3]string{{"call_1", "fs_read", `{"path":"notes.txt"}`}}}
				}
				return toolCall("call_2", "turn_complete", `{"output":{"verdict":"green"}}`)
			})
			dialect := ""
			if tc.provider == "local" {
				dialect = tc.dialect
			}
			w := agentWorkspace(t, tc.provider, dialect, s.srv.URL+"/v1")
			out, code := w.run("", []string{tc.keyVar + "=" + agentKey}, "skill", "./judge", "-i", "path=notes.txt", "--drive", "--json")
			if code != 0 || str(out, "result", "verdict") != "green" || str(out, "agent", "dialect") == "" || get(out, "agent", "usage", "output_tokens") != 40.0 {
				t.Fatalf("drive: %d %v", code, out)
			}
			if len(s.paths) != 2 || s.paths[0] != tc.path || !strings.Contains(s.headers[0].Get(tc.auth), agentKey) {
				t.Fatalf("requests %v %v", s.paths, s.headers)
			}
			second, _ := json.Marshal(s.requests()[1])
			if !strings.Contains(string(second), "the build is green") {
				t.Fatalf("the tool's result did not reach the second round: %s", second)
			}
			assertNoKey(t, w, out)
		})
	}
}

const askSkill = `minimum_runx: 0.1.0
methods:
  review:
    steps:
      - id: judge
        agent:
          task: Ask before judging.
          ask: true
        outputs:
          verdict: { type: string }
`

// ask_human still stops for a person: the drive pauses on the approval,
// and runx resume --drive with the person's decision collects it and the
// model completes the turn.
func TestDriveAskHumanStopsForAPerson(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(n int, body map[string]any) standInAnswer {
		if n == 0 {
			return toolCall("a1", "ask_human", `{"reason":"May I judge the notes?"}`)
		}
		return toolCall("a2", "turn_complete", `{"output":{"verdict":"asked"}}`)
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	for name, body := range skillFiles("asker", askSkill) {
		w.write(name, body)
	}
	out, code := w.run("", nil, "skill", "./asker", "--drive", "--json")
	if code != 0 || str(out, "status") == "sealed" || str(out, "agent", "turns", "0", "status") != "waiting" {
		t.Fatalf("drive: %d %v", code, out)
	}
	var digest string
	reqs, _ := out["requests"].([]any)
	for _, r := range reqs {
		if str(r, "address") == "judge/0" && str(r, "kind") == "approval" {
			digest = str(r, "request_digest")
		}
	}
	if digest == "" {
		t.Fatalf("the envelope does not list the person's approval: %v", reqs)
	}
	// A run the managed agent drives is not served to a host.
	mcpOut, err := w.cmd("", nil, "mcp", "--run", str(out, "run_id")).CombinedOutput()
	if err == nil || !strings.Contains(string(mcpOut), "run_managed") {
		t.Fatalf("runx mcp --run served a managed run: %v %s", err, mcpOut)
	}
	doc := fmt.Sprintf(`{"approvals":{"judge/0":{"request_digest":%q,"approved":true,"reason":"go ahead"}}}`, digest)
	resumed, code := w.run(doc, nil, "resume", str(out, "run_id"), "-", "--drive", "--json")
	if code != 0 || str(resumed, "result", "verdict") != "asked" {
		t.Fatalf("resume: %d %v", code, resumed)
	}
	first, _ := json.Marshal(s.requests()[1]["messages"])
	if !strings.Contains(string(first), "ask_human") || !strings.Contains(string(first), "go ahead") {
		t.Fatalf("the person's answer did not reach the model: %s", first)
	}
}

const fanJudge = `minimum_runx: 0.1.0
methods:
  review:
    inputs:
      paths: { type: array, required: true }
    steps:
      - id: each
        for_each: $input.paths
        skill: ./one
        inputs: { path: $item }
`

const fanOne = `minimum_runx: 0.1.0
methods:
  judge:
    inputs:
      path: { type: string, required: true }
    steps:
      - id: judge
        agent:
          task: Judge one file.
        inputs: { path: $input.path }
        outputs:
          verdict: { type: string }
`

// The turns of a fan-out are driven at once: the stand-in answers no
// round until all three are in flight.
func TestDriveFanOutConcurrently(t *testing.T) {
	const items = 3
	var mu sync.Mutex
	inFlight, peak := 0, 0
	all := make(chan struct{})
	s := newProviderStandIn(t, "chat_completions", func(n int, body map[string]any) standInAnswer {
		return toolCall(fmt.Sprintf("c%d", n), "turn_complete", `{"output":{"verdict":"ok"}}`)
	})
	s.gate = func() {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		if inFlight == items {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(20 * time.Second):
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
	}
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	for name, body := range skillFiles("fanjudge", fanJudge) {
		w.write(name, body)
	}
	for name, body := range skillFiles("one", fanOne) {
		w.write("fanjudge/"+name, body)
	}
	out, code := w.run(`{"paths":["a","b","c"]}`, nil, "skill", "./fanjudge", "--inputs", "-", "--drive", "--json")
	if code != 0 || str(out, "outcome") != "completed" {
		t.Fatalf("drive: %d %v", code, out)
	}
	turns, _ := get(out, "agent", "turns").([]any)
	if peak != items || len(turns) != items {
		t.Fatalf("peak %d in flight, %d turns: %v", peak, len(turns), out["agent"])
	}
}

func (w *workspace) write(name, body string) {
	w.t.Helper()
	path := filepath.Join(w.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// The maintained review skill, driven end to end against the
// chat_completions stand-in: it reads the file, its first verdict is
// refused by the output schema and corrected, the run seals completed and
// its receipt tree verifies. Its own tests pass under runx test too.
func TestDriveReviewSkill(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(n int, body map[string]any) standInAnswer {
		switch n {
		case 0:
			return toolCall("r1", "fs_read", `{"path":"total.py"}`)
		case 1:
			return toolCall("r2", "turn_complete", `{"output":{"verdict":"maybe","findings":[]}}`)
		}
		return toolCall("r3", "turn_complete", `{"output":{"verdict":"request_changes","findings":[{"where":"line 3","what":"The loop skips the first element."}]}}`)
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	w.write("total.py", "def total(xs):\n    t = 0\n    for i in range(1, len(xs)):\n        t += xs[i]\n    return t\n")
	out, code := w.run("", nil, "skill", "runx/review", "-i", "path=total.py", "--drive", "--json")
	if code != 0 || str(out, "result", "verdict") != "request_changes" || str(out, "result", "findings", "0", "where") != "line 3" {
		t.Fatalf("drive: %d %v", code, out)
	}
	reqs := s.requests()
	if len(reqs) != 3 || !strings.Contains(str(lastChatMessage(reqs[2]), "content"), "does not match its schema") {
		t.Fatalf("the schema refusal was not fed back: %d rounds, last %v", len(reqs), lastChatMessage(reqs[len(reqs)-1]))
	}
	if !strings.Contains(str(reqs[0], "messages", "0", "content"), "# review") {
		t.Fatal("the review manual was not the turn's instructions")
	}
	verify, code := w.run("", nil, "verify", str(out, "receipt_id"), "--json")
	if code != 0 || str(verify, "status") != "verified" {
		t.Fatalf("verify: %v", verify)
	}
	repo, _ := filepath.Abs("../..")
	c := w.cmd("", nil, "test", filepath.Join(repo, "skills", "review"))
	res, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(res), "3 passed, 0 failed") {
		t.Fatalf("runx test skills/review: %v\n%s", err, res)
	}
}

const nestSkill = `minimum_runx: 0.1.0
methods:
  nest:
    steps:
      - id: answer
        agent:
          task: Get a report and finish.
          calls: { skills: [./reporter] }
        outputs:
          done: { type: boolean }
`

const reporterSkill = `minimum_runx: 0.1.0
methods:
  report:
    inputs:
      topic: { type: string, required: true }
    steps:
      - id: report
        agent: { task: Report on the topic in one line., calls: { tools: [fs.read] } }
        inputs: { topic: $input.topic }
        outputs:
          text: { type: string }
`

// A turn's skill call whose child pauses on its own turn: the drive works
// the child's turn (answer/0#report) too, the call settles with the
// child's result, and the parent's turn completes in a fresh conversation
// that lists it.
func TestDriveChildTurnOfASkillCall(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(n int, body map[string]any) standInAnswer {
		first := str(body, "messages", "1", "content")
		last := lastChatMessage(body)
		if strings.Contains(first, `"turn": "answer/0#report"`) {
			if last["role"] == "tool" {
				return toolCall("k2", "turn_complete", `{"output":{"text":"two tides a day"}}`)
			}
			return toolCall("k1", "fs_read", `{"path":"tides.txt"}`)
		}
		if strings.Contains(first, "two tides a day") {
			return toolCall("p2", "turn_complete", `{"output":{"done":true}}`)
		}
		return toolCall("p1", "skill_reporter", `{"topic":"tides"}`)
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	for name, body := range skillFiles("nest", nestSkill) {
		w.write(name, body)
	}
	for name, body := range skillFiles("reporter", reporterSkill) {
		w.write("nest/"+name, body)
	}
	w.write("tides.txt", "two tides a day")
	out, code := w.run("", nil, "skill", "./nest", "--drive", "--json")
	if code != 0 || str(out, "outcome") != "completed" || get(out, "result", "done") != true {
		t.Fatalf("drive: %d %v (%d rounds)", code, out, len(s.requests()))
	}
	turns, _ := get(out, "agent", "turns").([]any)
	if len(turns) != 2 || len(s.requests()) != 4 {
		t.Fatalf("turns %v, rounds %d", turns, len(s.requests()))
	}
}

const failureOutputSkill = `minimum_runx: 0.1.0
methods:
  review:
    steps:
      - id: judge
        agent:
          task: Judge.
        outputs:
          failure: { type: string }
`

// A step that declares an output named failure refuses the driver's
// failure answer when the budget is spent: the drive of the turn ends and
// the run stays paused, it does not spin.
func TestDriveRefusedFailureEndsTheDrive(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(int, map[string]any) standInAnswer {
		return standInAnswer{text: "hm"}
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	for name, body := range skillFiles("failer", failureOutputSkill) {
		w.write(name, body)
	}
	out, code := w.run("", nil, "skill", "./failer", "--drive", "--max-rounds", "1", "--json")
	if code != 0 || str(out, "status") != "needs_agent" || len(s.requests()) != 1 || str(out, "agent", "turns", "0", "status") != "budget_exhausted" {
		t.Fatalf("drive: %d %v (%d rounds)", code, out, len(s.requests()))
	}
}
