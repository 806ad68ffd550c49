package run

import "context"

// AgentStatement is what a managed agent states about the turn it answered:
// the provider and model that worked it and what it spent. The driver that
// answers the turn gives it with the answer (ResumeRequest.Agents); the
// turn's receipt and its event carry it. A provider's refusal is its HTTP
// status and its own message only, never its body or a key.
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

// stateAgent puts what the managed agent stated into the turn's receipt
// body and its run's events.
func (rc *runCtx) stateAgent(ctx context.Context, address string, extra map[string]any) (map[string]any, error) {
	st := rc.agents[address]
	if st == nil {
		return extra, nil
	}
	if extra == nil {
		extra = map[string]any{}
	}
	extra["agent"] = st
	return extra, rc.e.Journal.AppendEvent(durable(ctx), rc.rec.RunID, "steps", EventAgentTurn, map[string]any{
		"address": address, "provider": st.Provider, "model": st.Model, "rounds": st.Rounds,
		"input_tokens": st.InputTokens, "output_tokens": st.OutputTokens,
	})
}
