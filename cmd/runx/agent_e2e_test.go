package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const judgeSkill = `minimum_runx: 0.1.0
methods:
  review:
    inputs:
      path: { type: string, required: true }
    steps:
      - id: judge
        agent:
          task: Read the file at the path and judge it.
          calls: { tools: [fs.read] }
        inputs: { path: $input.path }
        outputs:
          verdict: { type: string }
`

const agentKey = "sk-local-9f8e7d6c5b4a"

// agentWorkspace is a workspace with the judge skill and a runx home
// configured (through runx config) for a provider speaking dialect at url.
func agentWorkspace(t *testing.T, provider, dialect, url string) *workspace {
	t.Helper()
	files := skillFiles("judge", judgeSkill)
	files["notes.txt"] = "the build is green\n"
	w := newWorkspace(t, files)
	set := [][2]string{{"agent.provider", provider}, {"agent.model", "stand-in-model"}, {"agent.endpoint_url", url}}
	if dialect != "" {
		set = append(set, [2]string{"agent.dialect", dialect})
	}
	for _, kv := range set {
		if out, code := w.run("", nil, "config", "set", kv[0], kv[1], "--json"); code != 0 {
			t.Fatalf("config set %s: %d %v", kv[0], code, out)
		}
	}
	return w
}

func toolCall(id, name, args string) standInAnswer {
	return standInAnswer{calls: [][3]string{{id, name, args}}}
}

// The last message a round was sent, as the chat_completions dialect sends it.
func lastChatMessage(body map[string]any) map[string]any {
	msgs, _ := body["messages"].([]any)
	m, _ := msgs[len(msgs)-1].(map[string]any)
	return m
}

// A turn calls fs.read through the driver (admitted and recorded as
// turn_call records it), then completes; the run seals completed, the
// envelope shows the budget and what was spent, the receipt names the model.
func TestDriveToolCallThenComplete(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(n int, body map[string]any) standInAnswer {
		if n == 0 {
			return toolCall("call_1", "fs_read", `{"path":"notes.txt"}`)
		}
		return toolCall("call_2", "turn_complete", `{"output":{"verdict":"green"}}`)
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	out, code := w.run("", []string{"RUNX_AGENT_API_KEY=" + agentKey}, "skill", "./judge", "-i", "path=notes.txt", "--drive", "--json")
	if code != 0 || str(out, "outcome") != "completed" || str(out, "result", "verdict") != "green" {
		t.Fatalf("drive: %d %v", code, out)
	}
	if get(out, "agent", "budget", "rounds_per_turn") != 16.0 || get(out, "agent", "rounds") != 2.0 ||
		get(out, "agent", "usage", "input_tokens") != 200.0 || str(out, "agent", "model") != "stand-in-model" ||
		str(out, "agent", "turns", "0", "status") != "answered" || get(out, "agent", "turns", "0", "calls") != 1.0 {
		t.Fatalf("agent report: %v", out["agent"])
	}
	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 rounds, got %d", len(reqs))
	}
	first := reqs[0]
	if first["model"] != "stand-in-model" || first["stream"] != true {
		t.Fatalf("request: %v", first)
	}
	sys := str(first, "messages", "0", "content")
	if !strings.Contains(sys, "Manual.") || !strings.Contains(sys, "sha256:") {
		t.Fatalf("system prompt lacks the digest-bound manual: %q", sys)
	}
	if user := str(first, "messages", "1", "content"); !strings.Contains(user, "Read the file at the path") || !strings.Contains(user, "notes.txt") {
		t.Fatalf("turn message: %q", user)
	}
	tools, _ := first["tools"].([]any)
	if len(tools) != 2 || str(tools[0], "function", "name") != "fs_read" || str(tools[1], "function", "name") != "turn_complete" ||
		get(tools[0], "function", "parameters", "required", "0") != "path" {
		t.Fatalf("tools: %v", tools)
	}
	if s.headers[0].Get("Authorization") != "Bearer "+agentKey {
		t.Fatal("the key was not sent as the dialect sends it")
	}
	result := lastChatMessage(reqs[1])
	if result["role"] != "tool" || result["tool_call_id"] != "call_1" || !strings.Contains(result["content"].(string), "the build is green") {
		t.Fatalf("tool result: %v", result)
	}
	hist, _ := w.run("", nil, "history", str(out, "run_id"), "--json")
	raw, _ := json.Marshal(hist)
	if !bytes.Contains(raw, []byte(`"agent.turn"`)) || !bytes.Contains(raw, []byte(`stand-in-model`)) || !bytes.Contains(raw, []byte(`"call.success"`)) {
		t.Fatalf("history lacks the agent turn and its call: %s", raw)
	}
	receipts := readTree(t, filepath.Join(w.dir, ".runx", "receipts"))
	if !strings.Contains(receipts, `"provider":"local"`) || !strings.Contains(receipts, `"model":"stand-in-model"`) {
		t.Fatal("no receipt names the provider and model")
	}
	assertNoKey(t, w, out)
}

// A refused output is fed back to the model as the answer to its
// turn_complete call, and its correction within the budget completes.
func TestDriveRefusedOutputCorrected(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(n int, body map[string]any) standInAnswer {
		if n == 0 {
			return toolCall("c1", "turn_complete", `{"output":{"verdict":42}}`)
		}
		return toolCall("c2", "turn_complete", `{"output":{"verdict":"fixed"}}`)
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	out, code := w.run("", nil, "skill", "./judge", "-i", "path=notes.txt", "--drive", "--json")
	if code != 0 || str(out, "result", "verdict") != "fixed" {
		t.Fatalf("drive: %d %v", code, out)
	}
	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("rounds: %d", len(reqs))
	}
	fb := lastChatMessage(reqs[1])
	if fb["role"] != "tool" || fb["tool_call_id"] != "c1" || !strings.Contains(fb["content"].(string), "runx refused this output") {
		t.Fatalf("feedback: %v", fb)
	}
	if get(out, "agent", "rounds") != 2.0 || str(out, "agent", "turns", "0", "status") != "answered" {
		t.Fatalf("agent: %v", out["agent"])
	}
}

// A model that never completes exhausts the turn's round budget: the step
// fails naming the ceiling, and no round past the budget is sent.
func TestDriveRoundBudgetExhausted(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(int, map[string]any) standInAnswer {
		return standInAnswer{text: "thinking..."}
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	out, code := w.run("", nil, "skill", "./judge", "-i", "path=notes.txt", "--drive", "--max-rounds", "3", "--json")
	if code != 1 || str(out, "outcome") != "failed" || !strings.Contains(str(out, "error", "message"), "agent_round_budget_exhausted") {
		t.Fatalf("drive: %d %v", code, out)
	}
	if len(s.requests()) != 3 || str(out, "agent", "turns", "0", "status") != "budget_exhausted" || get(out, "agent", "budget", "rounds_per_turn") != 3.0 {
		t.Fatalf("rounds %d, agent %v", len(s.requests()), out["agent"])
	}
	// A run-wide token budget stops it too.
	out, _ = w.run("", nil, "skill", "./judge", "-i", "path=notes.txt", "--drive", "--max-run-tokens", "100", "--json")
	if !strings.Contains(str(out, "error", "message"), "agent_token_budget_exhausted") {
		t.Fatalf("token budget: %v", out)
	}
}

// A provider's refusal seals the step failed with its status and message
// only; the key it quotes never reaches the envelope, receipts or state.
func TestDriveProviderRefusal(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(int, map[string]any) standInAnswer {
		return standInAnswer{status: 401, errMsg: "Incorrect API key provided: " + agentKey + "."}
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	out, code := w.run("", []string{"RUNX_AGENT_API_KEY=" + agentKey}, "skill", "./judge", "-i", "path=notes.txt", "--drive", "--json")
	msg := str(out, "error", "message")
	if code != 1 || str(out, "outcome") != "failed" || !strings.Contains(msg, "agent_provider_refused") || !strings.Contains(msg, "401") ||
		!strings.Contains(msg, "Incorrect API key provided: [redacted].") {
		t.Fatalf("drive: %d %v", code, out)
	}
	if get(out, "agent", "turns", "0", "provider_status") != 401.0 || str(out, "agent", "turns", "0", "status") != "provider_refused" {
		t.Fatalf("agent: %v", out["agent"])
	}
	receipts := readTree(t, filepath.Join(w.dir, ".runx", "receipts"))
	if !strings.Contains(receipts, `"provider_status":401`) {
		t.Fatal("the receipt lacks the provider's status")
	}
	assertNoKey(t, w, out)
}

// A managed run without agent.model is refused before it starts, and
// without --drive a configured provider is never asked: the run pauses.
func TestDriveNeedsModelAndConsent(t *testing.T) {
	s := newProviderStandIn(t, "chat_completions", func(int, map[string]any) standInAnswer {
		return toolCall("c", "turn_complete", `{"output":{"verdict":"x"}}`)
	})
	w := agentWorkspace(t, "local", "chat_completions", s.srv.URL+"/v1")
	out, code := w.run("", nil, "skill", "./judge", "-i", "path=notes.txt", "--json")
	if code != 0 || str(out, "status") != "needs_agent" || out["agent"] != nil || len(s.requests()) != 0 {
		t.Fatalf("no consent: %d %v (requests %d)", code, out, len(s.requests()))
	}
	// A run paused without consent is still a host's to serve.
	if mcpOut, err := w.cmd("", nil, "mcp", "--run", str(out, "run_id")).CombinedOutput(); err != nil {
		t.Fatalf("runx mcp --run refused an unmanaged run: %v %s", err, mcpOut)
	}
	// runx resume --drive gives consent for the paused run.
	resumed, code := w.run("", nil, "resume", str(out, "run_id"), "--drive", "--json")
	if code != 0 || str(resumed, "outcome") != "completed" || len(s.requests()) != 1 {
		t.Fatalf("resume --drive: %d %v", code, resumed)
	}
	if _, code := w.run("", nil, "skill", "./judge", "-i", "path=notes.txt", "--max-rounds", "2", "--json"); code != 2 {
		t.Fatalf("a budget without --drive: exit %d", code)
	}
	if out, code := w.run("", nil, "config", "unset", "agent.model", "--json"); code != 0 {
		t.Fatalf("unset: %v", out)
	}
	out, code = w.run("", nil, "skill", "./judge", "-i", "path=notes.txt", "--drive", "--json")
	if code != 1 || str(out, "error", "code") != "agent_model_missing" || len(s.requests()) != 1 {
		t.Fatalf("no model: %d %v", code, out)
	}
	hist, _ := w.run("", nil, "history", "--json")
	raw, _ := json.Marshal(hist)
	if n := bytes.Count(raw, []byte(`"run_id"`)); n != 1 {
		t.Fatalf("a refused managed run started: %d runs in %s", n, raw)
	}
}

// runx config refuses unknown keys and a secret pasted as a value.
func TestConfigCommandRefusals(t *testing.T) {
	w := newWorkspace(t, map[string]string{})
	for _, tc := range []struct {
		args []string
		code string
	}{
		{[]string{"config", "set", "agent.api_key", "x"}, "config_key_unknown"},
		{[]string{"config", "set", "agent.secret", "sk-ant-api03-abcdef"}, "config_secret_unknown"},
		{[]string{"config", "set", "agent.dialect", "grpc"}, "config_value_invalid"},
		{[]string{"config", "get", "agent.nope"}, "config_key_unknown"},
	} {
		out, code := w.run("", nil, append(tc.args, "--json")...)
		if code != 1 || str(out, "error", "code") != tc.code {
			t.Errorf("%v: %d %v", tc.args, code, out)
		}
	}
	if out, code := w.run("openai-key-value\n", nil, "secret", "set", "openai", "--json"); code != 0 {
		t.Fatalf("secret set: %v", out)
	}
	if out, code := w.run("", nil, "config", "set", "agent.secret", "openai", "--json"); code != 0 {
		t.Fatalf("secret by name: %v", out)
	}
	out, _ := w.run("", nil, "config", "list", "--json")
	if str(out, "values", "agent.secret") != "openai" {
		t.Fatalf("list: %v", out)
	}
	raw, _ := os.ReadFile(filepath.Join(w.dir, ".home", "config.json"))
	if bytes.Contains(raw, []byte("openai-key-value")) {
		t.Fatal("the secret reached config.json")
	}
}

func readTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			raw, _ := os.ReadFile(p)
			b.Write(raw)
		}
		return nil
	})
	return b.String()
}

// assertNoKey holds the taint rule: the delivered key is in no envelope,
// receipt, history or state file.
func assertNoKey(t *testing.T, w *workspace, env map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(env)
	if bytes.Contains(raw, []byte(agentKey)) {
		t.Fatal("the key reached the envelope")
	}
	if strings.Contains(readTree(t, filepath.Join(w.dir, ".runx")), agentKey) {
		t.Fatal("the key reached the project's state or receipts")
	}
}
