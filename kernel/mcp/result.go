package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
)

// jsonResult is a tool result whose structured content is v and whose text
// is v's JSON, for clients that read only text.
func jsonResult(v any, isError bool) *mcp.CallToolResult {
	raw, err := json.Marshal(v)
	if err != nil {
		return errorResult(err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: json.RawMessage(raw),
		IsError:           isError,
	}
}

// errorResult is a refusal the caller can act on: isError with the code and
// a message that says what to fix.
func errorResult(err error) *mcp.CallToolResult {
	body := contract.BodyOf(err)
	raw, _ := json.Marshal(map[string]any{"error": body})
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s [%s]", body.Message, body.Code)}},
		StructuredContent: json.RawMessage(raw),
		IsError:           true,
	}
}

// envelopeResult presents a run's envelope: a sealed run's result with its
// receipt id, or a paused run's id and requests. Only a run that sealed with
// an outcome other than completed is an error.
func envelopeResult(env *contract.SkillRun) *mcp.CallToolResult {
	res := jsonResult(env, env.Status == contract.StatusSealed && env.Outcome != seal.OutcomeCompleted)
	summary := envelopeSummary(env)
	res.Content = append([]mcp.Content{&mcp.TextContent{Text: summary}}, res.Content...)
	return res
}

func envelopeSummary(env *contract.SkillRun) string {
	if env.Status == contract.StatusSealed {
		s := fmt.Sprintf("run %s sealed %s; receipt %s", env.RunID, strings.TrimSpace(string(env.Outcome)+" "+string(env.SealReason)), env.ReceiptID)
		if env.Error != nil {
			s += fmt.Sprintf("; %s [%s]", env.Error.Message, env.Error.Code)
		}
		return s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "run %s paused %s; it waits on:", env.RunID, env.Status)
	for _, r := range env.Requests {
		fmt.Fprintf(&b, " %s (%s)", r.Address, r.Kind)
	}
	for _, r := range env.RefusedAnswers {
		fmt.Fprintf(&b, "; answer to %s refused: %s [%s]", r.Address, r.Error.Message, r.Error.Code)
	}
	if env.Status == contract.StatusNeedsAgent {
		b.WriteString(". Work its turns with turn_status, turn_call and turn_complete.")
	}
	return b.String()
}
