package contract

import "github.com/runxhq/runx/sdk/errcode"

// AgentRun is what a managed agent did in one drive of a run (--drive):
// who worked it, under which budget, and what each turn it worked spent.
// It is in the envelope so the budget is visible; the turns' receipts
// carry each turn's statement.
type AgentRun struct {
	Provider string      `json:"provider"`
	Model    string      `json:"model"`
	Dialect  string      `json:"dialect"`
	Budget   AgentBudget `json:"budget"`
	Rounds   int         `json:"rounds"`
	Usage    AgentUsage  `json:"usage"`
	Turns    []AgentTurn `json:"turns"`
}

// AgentBudget bounds a managed agent: rounds and tokens per turn and per
// run (0 tokens: no token bound).
type AgentBudget struct {
	RoundsPerTurn int   `json:"rounds_per_turn"`
	RoundsPerRun  int   `json:"rounds_per_run"`
	TokensPerTurn int64 `json:"tokens_per_turn,omitempty"`
	TokensPerRun  int64 `json:"tokens_per_run,omitempty"`
}

// AgentUsage counts tokens as the provider reported them.
type AgentUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// AgentTurnStatus is how the managed agent left one turn.
type AgentTurnStatus string

// Agent turn statuses in the envelope's agent report.
const (
	// TurnAnswered: the turn's output or failure went to the run.
	TurnAnswered AgentTurnStatus = "answered"
	// TurnRefusedOutput: the step refused the turn's last output.
	TurnRefusedOutput AgentTurnStatus = "refused_output"
	// TurnWaiting: a call of the turn waits on a person.
	TurnWaiting AgentTurnStatus = "waiting"
	// TurnBudgetExhausted: the turn or the run spent its round budget.
	TurnBudgetExhausted AgentTurnStatus = "budget_exhausted"
	// TurnProviderRefused: the provider refused a round; spelled as the
	// provider code behind it.
	TurnProviderRefused = AgentTurnStatus(errcode.ProviderRefused)
	// TurnError: the turn could not be worked (the run could not be read
	// or the drive was cancelled).
	TurnError AgentTurnStatus = "error"
)

// AgentTurn is one turn the managed agent worked. A provider's refusal is its
// status and message only.
type AgentTurn struct {
	Address         string          `json:"address"`
	Status          AgentTurnStatus `json:"status"`
	Rounds          int             `json:"rounds"`
	Calls           int             `json:"calls"`
	Usage           AgentUsage      `json:"usage"`
	ProviderStatus  int             `json:"provider_status,omitempty"`
	ProviderMessage string          `json:"provider_message,omitempty"`
	Error           *ErrorBody      `json:"error,omitempty"`
}
