package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/kernel/credential"
)

const postboxSkill = `minimum_runx: 0.1.0
methods:
  send:
    description: Send one message once a person approves its exact text.
    inputs:
      to: { type: string, required: true }
      text: { type: string, required: true }
      key: { type: string, required: true }
    steps:
      - id: send
        operation: postbox/message.send
        idempotency_key: $input.key
        approval: { reason: Send this exact message., type: message }
        inputs: { to: $input.to, text: $input.text }
  list:
    description: List what the account sent.
    steps:
      - { id: list, operation: postbox/messages.list }
  search:
    description: Find what was sent to one recipient.
    inputs:
      to: { type: string, required: true }
    steps:
      - { id: search, operation: postbox/messages.search, inputs: { to: $input.to } }
`

// postboxToken is the test account's API token.
const postboxToken = "pbx-tok-7d41e09b"

// postboxWorkspace installs the third-party connector (built only against
// sdk/) beside a skill that calls it, configured for provider, unpinned.
func postboxWorkspace(t *testing.T, provider *testserver.Provider) *workspace {
	t.Helper()
	w := newWorkspace(t, skillFiles("postbox", postboxSkill))
	raw, err := os.ReadFile(filepath.Join(binDir, "runx-plugin-postbox"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w.dir, ".runx", "plugins"), 0o755)
	if err := os.WriteFile(filepath.Join(w.dir, ".runx", "plugins", "runx-plugin-postbox"), raw, 0o755); err != nil {
		t.Fatal(err)
	}
	// The account's token: the provider takes no other, and runx delivers
	// it from the variable the plugin's description names.
	provider.RequireBearer(postboxToken)
	w.env = append(w.env, "POSTBOX_TOKEN="+postboxToken)
	conf, _ := json.Marshal(map[string]string{"base_url": provider.URL})
	if err := os.WriteFile(filepath.Join(w.dir, ".runx", "postbox.json"), conf, 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

func pinPostbox(t *testing.T, w *workspace) {
	t.Helper()
	if doc, code := w.run("", nil, "plugin", "pin", "postbox", "--json"); code != 0 {
		t.Fatalf("pin: %d %v", code, doc)
	}
}

// approve resumes a run paused on its one approval, approving it, with
// any further flags.
func approve(t *testing.T, w *workspace, paused map[string]any, flags ...string) (map[string]any, int) {
	t.Helper()
	if str(paused, "status") != "needs_approval" {
		t.Fatalf("want a run paused for approval, got %v", paused)
	}
	doc := answerDoc("approvals", str(paused, "requests", "0", "address"), str(paused, "requests", "0", "request_digest"), `"approved":true,"reason":"ok"`)
	return w.run(doc, nil, append([]string{"resume", str(paused, "run_id"), "-", "--json"}, flags...)...)
}

// stepCostOf reads the cost fields of a step's receipt from the store.
func stepCostOf(t *testing.T, w *workspace, env map[string]any, step string) map[string]any {
	t.Helper()
	steps, _ := get(env, "trace", "steps").([]any)
	for _, s := range steps {
		if str(s, "step_id") != step {
			continue
		}
		id := strings.TrimPrefix(str(s, "receipt_id"), "sha256:")
		raw, err := os.ReadFile(filepath.Join(w.dir, ".runx", "receipts", "sha256-"+id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var r map[string]any
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		cost, _ := get(r, "body", "extra", "cost").(map[string]any)
		return cost
	}
	t.Fatalf("no step %s in %v", step, env)
	return nil
}

// A connector can be a third-party runx-plugin-<name> binary declaring its
// operations through the capability contract: pinned, it is reached as
// operation steps with the step's own approval, an idempotent write the
// provider confirms by readback, and a refusal of the binary once it
// changes after pinning.
func TestThirdPartyConnectorEndToEnd(t *testing.T) {
	provider := testserver.StartProvider(t)
	w := postboxWorkspace(t, provider)
	send := []string{"skill", "./postbox", "send", "-i", "to=ada@example.com", "-i", "text=hello", "-i", "key=greeting-1", "--json"}

	if doc, code := w.run("", nil, send...); code == 0 || str(doc, "error", "code") != "plugin_unpinned" {
		t.Fatalf("an unpinned connector must be refused: %d %v", code, doc)
	}
	pinPostbox(t, w)

	paused, _ := w.run("", nil, send...)
	if str(paused, "requests", "0", "payload", "operation") != "postbox/message.send" || provider.Requests("POST /v1/messages") != 0 {
		t.Fatalf("the write must wait for its approval before anything is sent: %v", paused)
	}
	done, code := approve(t, w, paused)
	if code != 0 || str(done, "outcome") != "completed" || get(done, "result", "confirmed") != true || get(done, "result", "replayed") != false {
		t.Fatalf("approved send: %d %v", code, done)
	}
	if provider.Requests("POST /v1/messages") != 1 || provider.Requests("GET /v1/messages/{id}") != 1 {
		t.Fatalf("one send and one readback, got %d and %d", provider.Requests("POST /v1/messages"), provider.Requests("GET /v1/messages/{id}"))
	}
	cost := stepCostOf(t, w, done, "send")
	if cost["quoted_usd_micro"] != float64(2500) || cost["settled_usd_micro"] != float64(2500) || cost["payer"] != "local" {
		t.Fatalf("the call's cost fields: %v", cost)
	}

	// The same key and body again: the provider deduplicates under the
	// connector's derived key, so nothing new is committed.
	again, _ := approve(t, w, first(w.run("", nil, send...)))
	if str(again, "outcome") != "completed" || get(again, "result", "replayed") != true || len(provider.Messages()) != 1 {
		t.Fatalf("a repeat under the same key must commit nothing: %v %v", again, provider.Messages())
	}
	// Another body under the same key is refused by the provider (422),
	// and a refused per-success call settles no charge.
	changed := append([]string{}, send...)
	changed[6] = "text=changed"
	refused, _ := approve(t, w, first(w.run("", nil, changed...)))
	if str(refused, "error", "code") != "idempotency_key_reused" || len(provider.Messages()) != 1 {
		t.Fatalf("another body under a used key: %v", refused)
	}
	if cost := stepCostOf(t, w, refused, "send"); cost["settled_usd_micro"] != float64(0) {
		t.Fatalf("a refused send is not billable: %v", cost)
	}

	listed, code := w.run("", nil, "skill", "./postbox", "list", "--json")
	if msgs, _ := get(listed, "result", "messages").([]any); code != 0 || len(msgs) != 1 {
		t.Fatalf("list: %d %v", code, listed)
	}

	// One byte changed after pinning: refused by name, nothing is sent.
	f, _ := os.OpenFile(filepath.Join(w.dir, ".runx", "plugins", "runx-plugin-postbox"), os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("x"))
	f.Close()
	before := provider.Requests("GET /v1/messages")
	if doc, code := w.run("", nil, "skill", "./postbox", "list", "--json"); code == 0 || str(doc, "error", "code") != "plugin_checksum_mismatch" {
		t.Fatalf("a changed binary must be refused: %d %v", code, doc)
	}
	if provider.Requests("GET /v1/messages") != before {
		t.Fatal("a refused binary reached the provider")
	}
}

func first(doc map[string]any, _ int) map[string]any { return doc }

// Spend applies to a third-party connector exactly as to any capability:
// its declared quote is reserved under --max-spend before the call is sent,
// a quote over the limit seals the run blocked, an unknown price is
// refused, inspection shows the declaration, and a resume's --max-spend
// narrows the limit.
func TestThirdPartyConnectorSpend(t *testing.T) {
	provider := testserver.StartProvider(t)
	w := postboxWorkspace(t, provider)
	pinPostbox(t, w)
	send := []string{"skill", "./postbox", "send", "-i", "to=ada@example.com", "-i", "text=hello", "-i", "key=k", "--json"}

	blocked, code := approve(t, w, first(w.run("", nil, append(send, "--max-spend", "0.002")...)))
	if code != 1 || str(blocked, "outcome") != "blocked" || str(blocked, "seal_reason") != "cost_limit_exceeded" || str(blocked, "error", "code") != "cost_limit_exceeded" {
		t.Fatalf("a quote over --max-spend: %d %v", code, blocked)
	}
	if provider.Requests("POST /v1/messages") != 0 {
		t.Fatal("a call over the limit was sent")
	}

	// A resume's --max-spend narrows a wider limit below the quote.
	narrowed, _ := approve(t, w, first(w.run("", nil, append(send, "--max-spend", "1")...)), "--max-spend", "0.0001")
	if str(narrowed, "outcome") != "blocked" || provider.Requests("POST /v1/messages") != 0 {
		t.Fatalf("resume --max-spend must narrow: %v", narrowed)
	}
	done, _ := approve(t, w, first(w.run("", nil, append(send, "--max-spend", "0.0025")...)))
	if str(done, "outcome") != "completed" || provider.Requests("POST /v1/messages") != 1 {
		t.Fatalf("a quote exactly at the limit: %v", done)
	}

	unknown, code := w.run("", nil, "skill", "./postbox", "search", "-i", "to=ada@example.com", "--max-spend", "5", "--json")
	if code != 1 || str(unknown, "error", "code") != "cost_quote_unknown" || provider.Requests("GET /v1/messages") != 0 {
		t.Fatalf("a metered call with no price under a limit: %d %v", code, unknown)
	}
	// Without a limit, metering at no published price asks once for the
	// exact call, sends nothing before the decision, then runs.
	asked, code := w.run("", nil, "skill", "./postbox", "search", "-i", "to=ada@example.com", "--json")
	if code != 0 || str(asked, "status") != "needs_approval" || provider.Requests("GET /v1/messages") != 0 {
		t.Fatalf("without a limit the metered call asks first: %d %v", code, asked)
	}
	if free, code := approve(t, w, asked); code != 0 || str(free, "outcome") != "completed" || provider.Requests("GET /v1/messages") != 1 {
		t.Fatalf("approved, the metered call runs once: %d %v", code, free)
	}

	if bad, code := w.run("", nil, append(send, "--max-spend", "1e3")...); code == 0 || str(bad, "error", "code") != "spend_limit_invalid" {
		t.Fatalf("an amount runx cannot hold exactly: %d %v", code, bad)
	}

	ins, code := w.run("", nil, "skill", "inspect", "./postbox", "send", "--json")
	if code != 0 || get(ins, "steps", "0", "cost", "usd_micro") != float64(2500) || str(ins, "steps", "0", "cost", "per") != "success" {
		t.Fatalf("inspection must show the declared cost: %v", ins)
	}
	ins, _ = w.run("", nil, "skill", "inspect", "./postbox", "search", "--run-authority", `{"max_spend_micro_usd":10}`, "--json")
	if str(ins, "steps", "0", "cost_refused", "code") != "cost_quote_unknown" {
		t.Fatalf("inspection under a limit must show the unknown price's refusal: %v", ins)
	}
}

// runx mcp --max-spend narrows the money limit of every run the session
// starts, so a skill tool's priced call over it is refused with nothing
// sent; it is a usage error beside --run.
func TestMCPMaxSpendNarrowsTheRunsItStarts(t *testing.T) {
	provider := testserver.StartProvider(t)
	w := postboxWorkspace(t, provider)
	pinPostbox(t, w)
	if _, code := w.run("", nil, "mcp", "--run", "run_x", "--max-spend", "1"); code != 2 {
		t.Fatalf("--max-spend with --run exited %d, want 2 (usage)", code)
	}
	call := func(limit string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "spend-test", Version: "0.0.1"}, nil)
		session, err := client.Connect(ctx, &mcp.CommandTransport{Command: w.cmd("", nil, "mcp", "./postbox#list", "--max-spend", limit)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer session.Close()
		tools, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		name := ""
		for _, tool := range tools.Tools {
			if tool.Title == "postbox#list" {
				name = tool.Name
			}
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var doc map[string]any
		json.Unmarshal(raw, &doc)
		return doc
	}
	blocked := call("0.00005")
	if str(blocked, "outcome") != "blocked" || str(blocked, "error", "code") != "cost_limit_exceeded" || provider.Requests("GET /v1/messages") != 0 {
		t.Fatalf("a quote of 100 micro-USD under a 50 micro-USD session limit: %v", blocked)
	}
	if done := call("1"); str(done, "outcome") != "completed" || provider.Requests("GET /v1/messages") != 1 {
		t.Fatalf("under a wide enough limit: %v", done)
	}
}

// A third-party connector plugin is delivered the credential its
// description names, exactly as a manifest connector is: resolved by runx
// (the variable, else the stored secret), sent only in the call's
// credentials, and never written anywhere runx writes. Without it the call
// is refused before anything is sent.
func TestThirdPartyConnectorCredential(t *testing.T) {
	provider := testserver.StartProvider(t)
	w := postboxWorkspace(t, provider)
	pinPostbox(t, w)
	withToken := w.env
	var bare []string
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "POSTBOX_TOKEN=") {
			bare = append(bare, kv)
		}
	}
	w.env = bare
	missing, code := w.run("", nil, "skill", "./postbox", "list", "--json")
	if code != 1 || str(missing, "error", "code") != "credential_missing" || provider.Requests("GET /v1/messages") != 0 {
		t.Fatalf("no credential: refused before anything is sent: %d %v", code, missing)
	}

	// The stored secret stands in for the variable.
	if doc, code := w.run(postboxToken, nil, "secret", "set", credential.DefaultSecretName("postbox"), "--json"); code != 0 {
		t.Fatalf("secret set: %d %v", code, doc)
	}
	stored, code := w.run("", nil, "skill", "./postbox", "list", "--json")
	if code != 0 || str(stored, "outcome") != "completed" || provider.Requests("GET /v1/messages") != 1 || provider.Unauthorized() != 0 {
		t.Fatalf("the stored secret is delivered: %d %v (unauthorized %d)", code, stored, provider.Unauthorized())
	}
	w.env = withToken
	listed, code := w.run("", nil, "skill", "./postbox", "list", "--json")
	if code != 0 || str(listed, "outcome") != "completed" || provider.Requests("GET /v1/messages") != 2 || provider.Unauthorized() != 0 {
		t.Fatalf("the variable is delivered: %d %v (unauthorized %d)", code, listed, provider.Unauthorized())
	}
	for _, doc := range []map[string]any{missing, stored, listed} {
		raw, _ := json.Marshal(doc)
		if strings.Contains(string(raw), postboxToken) {
			t.Fatalf("an envelope holds the token: %s", raw)
		}
	}
	err := filepath.WalkDir(filepath.Join(w.dir, ".runx"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "runx-plugin-") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(raw), postboxToken) {
			t.Errorf("%s holds the token", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
