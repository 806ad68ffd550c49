package turn

import (
	"context"

	"github.com/runxhq/runx/kernel/journal"
)

// AgentStatement is what a managed agent states about the turn it answered:
// the provider and model that worked it and what it spent. The driver that
// answers the turn gives it with the answer (the resume request's Agents);
// the turn's receipt and its event carry it. A provider's refusal is its
// HTTP status and its own message only, never its body or a key.
type AgentStatement struct {
	Provider        string `json:"provider"`
	Model           string `json:"model"`
	Dialect         string `json:"dialect"`
	Rounds          int    `json:"rounds"`
	InputTokens     int64  `json:"input_tokens"`
	OutputTokens    int64  `json:"output_tokens"`
	ProviderStatus  int    `json:"provider_status,omitempty"`
	ProviderMessage string `json:"provider_message,omitempty"`
}

// EventAgentTurn is the event of an agent step a managed agent answered.
const EventAgentTurn = "agent.turn"

// StateAgent puts what the managed agent stated (st, nil when none did)
// about the turn at address into the turn's receipt body (extra) and its
// run's events.
func StateAgent(ctx context.Context, j *journal.Journal, runID, address string, st *AgentStatement, extra map[string]any) (map[string]any, error) {
	if st == nil {
		return extra, nil
	}
	if extra == nil {
		extra = map[string]any{}
	}
	extra["agent"] = st
	return extra, j.AppendEvent(context.WithoutCancel(ctx), runID, "steps", EventAgentTurn, map[string]any{
		"address": address, "provider": st.Provider, "model": st.Model, "rounds": st.Rounds,
		"input_tokens": st.InputTokens, "output_tokens": st.OutputTokens,
	})
}
