package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// turnState is one turn's conversation, kept across the resumes of one
// drive so a refused output is fed back to the model that wrote it.
type turnState struct {
	digest string
	prompt *turnPrompt
	msgs   []Message
	rounds int
	calls  int
	// base numbers the calls this conversation makes after those the turn
	// had made before it began, so call_ids stay unique within the turn.
	base  int
	usage Usage
	// completing is the turn_complete call whose output went to the run,
	// and held the results of the calls beside it; refusal is why the
	// step refused that output.
	completing *ToolCall
	held       []ToolResult
	refusal    *contract.ErrorBody
	// ended says the turn was failed (a budget, the provider): a failure
	// the step refuses (it declares an output named failure) ends the
	// drive of the turn rather than being sent again.
	ended bool
}

// work works one open turn until it has an answer for the run, or stops
// (a call waits on a person, or it cannot go on).
func (d *Driver) work(ctx context.Context, runID string, req contract.Request) *answer {
	t, err := d.Kernel.Turn(ctx, runID, req.Address)
	if err != nil {
		d.settle(req.Address, contract.TurnError, nil, nil, err)
		return nil
	}
	waiting, collected, err := d.collectAsks(ctx, t)
	if err != nil || waiting {
		d.settle(req.Address, contract.TurnWaiting, nil, nil, err)
		return nil
	}
	if collected {
		if t, err = d.Kernel.Turn(ctx, runID, req.Address); err != nil {
			d.settle(req.Address, contract.TurnError, nil, nil, err)
			return nil
		}
	}
	d.mu.Lock()
	st := d.states[req.Address]
	d.mu.Unlock()
	if st == nil || st.digest != t.Request.RequestDigest {
		p, err := buildPrompt(ctx, d.Kernel, t)
		if err != nil {
			d.settle(req.Address, contract.TurnError, nil, nil, err)
			return nil
		}
		st = &turnState{digest: t.Request.RequestDigest, prompt: p, base: len(t.Calls),
			msgs: []Message{{Role: RoleUser, Text: p.first}}}
		d.mu.Lock()
		d.states[req.Address] = st
		d.mu.Unlock()
	}
	if st.ended {
		d.settle(req.Address, contract.TurnBudgetExhausted, st, nil, contract.Errorf(errcode.AgentRoundBudgetExhausted, "the turn's failure was refused by its step and its budget is spent"))
		return nil
	}
	if st.completing != nil {
		// The step refused the output: the model reads why, as the answer
		// to its turn_complete call.
		why := "runx refused this output"
		if st.refusal != nil {
			why = fmt.Sprintf("runx refused this output [%s]: %s. Correct it and call turn_complete again.", st.refusal.Code, st.refusal.Message)
		}
		results := append(st.held, ToolResult{CallID: st.completing.ID, Name: st.completing.Name, Content: why, IsError: true})
		st.msgs = append(st.msgs, Message{Role: RoleTool, Results: results})
		st.completing, st.held, st.refusal = nil, nil, nil
	}
	a := d.converse(ctx, t, st)
	if a != nil {
		a.address, a.digest = req.Address, t.Request.RequestDigest
	}
	return a
}

// converse runs rounds until the model completes the turn or the budget,
// the provider or a person stops it.
func (d *Driver) converse(ctx context.Context, t *run.OpenTurn, st *turnState) *answer {
	for {
		if reason, over := roundBudgetReason(d, st); over {
			return d.exhausted(t, st, errcode.AgentRoundBudgetExhausted, reason)
		}
		if b := d.Budget.TokensPerTurn; b > 0 && st.usage.Total() >= b {
			return d.exhausted(t, st, errcode.AgentTokenBudgetExhausted, fmt.Sprintf("the turn used its budget of %d tokens (tokens_per_turn)", b))
		}
		if b := d.Budget.TokensPerRun; b > 0 && d.runTokens() >= b {
			return d.exhausted(t, st, errcode.AgentTokenBudgetExhausted, fmt.Sprintf("the run used its budget of %d tokens (tokens_per_run)", b))
		}
		if !d.reserveRound() {
			return d.exhausted(t, st, errcode.AgentRoundBudgetExhausted, fmt.Sprintf("the run used its budget of %d rounds (rounds_per_run)", d.Budget.RoundsPerRun))
		}
		st.rounds++
		reply, err := d.dialect.Round(ctx, d.HTTP, d.Provider, &Request{Model: d.Provider.Model, System: st.prompt.system,
			Messages: st.msgs, Tools: st.prompt.tools, MaxTokens: d.maxTokens(st)})
		if err != nil {
			return d.providerFailed(ctx, t, st, err)
		}
		st.usage = st.usage.Add(reply.Usage)
		d.addUsage(reply.Usage)
		for i := range reply.Calls {
			if reply.Calls[i].ID == "" {
				reply.Calls[i].ID = "call_" + strconv.Itoa(st.rounds) + "_" + strconv.Itoa(i)
			}
		}
		st.msgs = append(st.msgs, Message{Role: RoleAssistant, Text: reply.Text, Calls: reply.Calls})
		if len(reply.Calls) == 0 {
			st.msgs = append(st.msgs, Message{Role: RoleUser, Text: "This turn ends only when you call turn_complete, with its output or a failure."})
			continue
		}
		var results []ToolResult
		var value json.RawMessage
		for i := range reply.Calls {
			c := reply.Calls[i]
			if value != nil {
				results = append(results, ToolResult{CallID: c.ID, Name: c.Name, Content: "not run: the turn was completed first", IsError: true})
				continue
			}
			if c.Name == CompleteTool {
				v, err := completion(c.Args)
				if err != nil {
					results = append(results, ToolResult{CallID: c.ID, Name: c.Name, Content: errorContent(err), IsError: true})
					continue
				}
				value = d.taint.ScrubJSON(v)
				st.completing = &reply.Calls[i]
				continue
			}
			res, waiting := d.call(ctx, t, st, c)
			if waiting {
				d.settle(t.Address, contract.TurnWaiting, st, nil, nil)
				// The conversation ends here: the next drive of the turn
				// starts afresh from the calls the run recorded, this one
				// settled by then.
				d.mu.Lock()
				d.asked = true
				delete(d.states, t.Address)
				d.mu.Unlock()
				return nil
			}
			results = append(results, res)
		}
		if value != nil {
			st.held = results
			d.settle(t.Address, contract.TurnAnswered, st, nil, nil)
			return &answer{value: value, statement: d.statement(st, nil)}
		}
		st.msgs = append(st.msgs, Message{Role: RoleTool, Results: results})
	}
}

// call makes one tool call through Kernel.TurnCall, admitted exactly as
// MCP's turn_call is; waiting says a person must decide it first.
func (d *Driver) call(ctx context.Context, t *run.OpenTurn, st *turnState, c ToolCall) (ToolResult, bool) {
	out := ToolResult{CallID: c.ID, Name: c.Name}
	tool, ok := st.prompt.names[c.Name]
	if !ok {
		out.Content, out.IsError = errorContent(contract.Errorf(errcode.CallNotAllowed, "no tool is named %q in this turn", c.Name)), true
		return out, false
	}
	st.calls++
	d.mu.Lock()
	d.turnRecord(t.Address).Calls = st.calls
	d.mu.Unlock()
	input := d.taint.ScrubJSON(c.Args)
	callID := callIDPrefix + strconv.Itoa(st.base+st.calls)
	if tool == run.AskHuman {
		input = normalAsk(input)
		if err := d.recordAsk(ctx, t, callID, input); err != nil {
			out.Content, out.IsError = errorContent(err), true
			return out, false
		}
	}
	res, err := d.Kernel.TurnCall(ctx, run.TurnCallRequest{RunID: t.RunID, Turn: t.Address, Tool: tool,
		Input: input, CallID: callID})
	if err != nil {
		out.Content, out.IsError = d.taint.Scrub(errorContent(err)), true
		return out, false
	}
	if res.Status == contract.CallPending {
		return out, true
	}
	raw, _ := json.Marshal(map[string]any{"status": res.Status, "output": res.Output, "error": res.Error, "receipt_id": res.ReceiptID})
	out.Content, out.IsError = d.taint.Scrub(string(raw)), res.Status != contract.CallSuccess
	return out, false
}

// completion reads turn_complete's input: exactly one of output and failure.
func completion(raw json.RawMessage) (json.RawMessage, error) {
	var in struct {
		Output  json.RawMessage `json:"output"`
		Failure *struct {
			Reason string `json:"reason"`
		} `json:"failure"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, contract.Errorf(errcode.TurnCompleteInvalid, "turn_complete takes an object with output or failure")
	}
	hasOutput := len(in.Output) > 0 && string(in.Output) != "null"
	if hasOutput == (in.Failure != nil) {
		return nil, contract.Errorf(errcode.TurnCompleteInvalid, "give exactly one of \"output\" and \"failure\"")
	}
	if in.Failure != nil {
		if in.Failure.Reason == "" {
			return nil, contract.Errorf(errcode.TurnCompleteInvalid, "failure.reason must say why the act cannot be done")
		}
		v, _ := json.Marshal(map[string]any{"failure": map[string]string{"reason": in.Failure.Reason}})
		return v, nil
	}
	return in.Output, nil
}

// exhausted ends a turn that hit a budget: it fails, its reason naming
// the ceiling.
func (d *Driver) exhausted(t *run.OpenTurn, st *turnState, code errcode.Code, reason string) *answer {
	d.settle(t.Address, contract.TurnBudgetExhausted, st, nil, contract.Errorf(code, "%s", reason))
	st.completing, st.ended = nil, true
	return &answer{value: failureValue(code, reason), statement: d.statement(st, nil)}
}

// providerFailed ends a turn whose provider refused or failed a round: the
// step fails with the provider's status and message, never its body or key.
func (d *Driver) providerFailed(ctx context.Context, t *run.OpenTurn, st *turnState, err error) *answer {
	if ctx.Err() != nil {
		d.settle(t.Address, contract.TurnError, st, nil, ctx.Err())
		return nil
	}
	var perr *ProviderError
	if pe, ok := err.(*ProviderError); ok {
		perr = &ProviderError{Status: pe.Status, Message: boundMessage(d.taint.Scrub(pe.Message))}
	} else {
		perr = &ProviderError{Message: boundMessage(d.taint.Scrub(err.Error()))}
	}
	reason := fmt.Sprintf("provider %s: %s", d.Provider.Name, perr.Error())
	d.settle(t.Address, contract.TurnProviderRefused, st, perr, contract.Errorf(errcode.AgentProviderRefused, "%s", reason))
	st.completing, st.ended = nil, true
	return &answer{value: failureValue(errcode.AgentProviderRefused, reason), statement: d.statement(st, perr)}
}

// maxTokens bounds one round by what the token budgets leave.
func (d *Driver) maxTokens(st *turnState) int {
	left := int64(0)
	if b := d.Budget.TokensPerTurn; b > 0 {
		left = b - st.usage.Total()
	}
	if b := d.Budget.TokensPerRun; b > 0 {
		if r := b - d.runTokens(); left == 0 || r < left {
			left = r
		}
	}
	if left <= 0 {
		return 0
	}
	return int(left)
}

// MaxProviderMessage bounds the provider's own message as the run records
// it: its words, never a body of any size.
const MaxProviderMessage = 512

func boundMessage(m string) string {
	r := []rune(m)
	if len(r) <= MaxProviderMessage {
		return m
	}
	return string(r[:MaxProviderMessage]) + "…"
}
