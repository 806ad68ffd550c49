package errcode

// Managed agent: The managed agent runx drives itself (`--drive`), its provider and its configuration.
const (
	// AgentBuiltinOverride: A built-in provider was given a dialect other than the one it speaks.
	// Do: Unset agent.dialect, or name your own provider to speak that dialect.
	AgentBuiltinOverride Code = "agent_builtin_override"

	// AgentDialectMissing: A provider runx does not know has no agent.dialect, so runx cannot tell how
	// to talk to it.
	// Do: Set agent.dialect to one of the dialects runx speaks.
	AgentDialectMissing Code = "agent_dialect_missing"

	// AgentDialectUnsupported: agent.dialect names a dialect runx does not speak.
	// Do: Set agent.dialect to one of the dialects the message lists.
	AgentDialectUnsupported Code = "agent_dialect_unsupported"

	// AgentEndpointMissing: A provider runx does not know has no agent.endpoint_url.
	// Do: Set agent.endpoint_url with runx config set.
	AgentEndpointMissing Code = "agent_endpoint_missing"

	// AgentKeyMissing: The provider needs an API key and none is configured.
	// Do: Export the variable the message names, or store the key with runx secret set and name it
	// with runx config set agent.secret.
	AgentKeyMissing Code = "agent_key_missing"

	// AgentManualDrift: A turn was bound to a package manual that is no longer the package's manual.
	// Do: Start a new run: the package changed under the paused turn.
	AgentManualDrift Code = "agent_manual_drift"

	// AgentModelMissing: A managed run has no model configured; runx names no model of its own.
	// Do: Set one with runx config set agent.model <model>.
	AgentModelMissing Code = "agent_model_missing"

	// AgentProviderMissing: A managed run has no provider configured.
	// Do: Set one with runx config set agent.provider <anthropic, openai, gemini or a name>.
	AgentProviderMissing Code = "agent_provider_missing"

	// AgentProviderRefused: The model provider refused the turn's request.
	// Do: Read the provider's reason in the message; fix the key, quota or request it names.
	AgentProviderRefused Code = "agent_provider_refused"

	// AgentRoundBudgetExhausted: The turn used all its rounds with the model without an answer its
	// step accepts.
	// Do: Raise the turn's round budget, or make the task smaller.
	AgentRoundBudgetExhausted Code = "agent_round_budget_exhausted"

	// AgentSecretUnreadable: agent.secret names a secret the runx home does not hold or cannot read.
	// Do: Store it with runx secret set <name>.
	AgentSecretUnreadable Code = "agent_secret_unreadable"

	// AgentTokenBudgetExhausted: The turn spent its token budget before it completed.
	// Do: Raise the turn's token budget, or make the task smaller.
	AgentTokenBudgetExhausted Code = "agent_token_budget_exhausted"

	// ConfigInvalid: The configuration file in the runx home is not a runx configuration.
	// Do: Fix or remove the file the message names.
	ConfigInvalid Code = "config_invalid"

	// ConfigKeyUnknown: runx config was given a key it does not know.
	// Do: Use one of the keys the message lists.
	ConfigKeyUnknown Code = "config_key_unknown"

	// ConfigSecretUnknown: agent.secret names a secret the runx home does not hold.
	// Do: Store it first with runx secret set <name> (the key is read from standard input).
	ConfigSecretUnknown Code = "config_secret_unknown"

	// ConfigValueInvalid: A configuration value has the wrong form.
	// Do: Give the value in the form the message states.
	ConfigValueInvalid Code = "config_value_invalid"

	// RunManaged: The run is driven by the managed agent, so it is not answered by hand.
	// Do: Continue it with runx resume <run> --drive.
	RunManaged Code = "run_managed"

	// TurnCompleteInvalid: A turn's completion is not an object with exactly one of output or failure.
	// Do: Complete the turn with {"output": ...} or {"failure": ...}.
	TurnCompleteInvalid Code = "turn_complete_invalid"

	// TurnRequestInvalid: The recorded request of an agent turn does not decode.
	// Do: The run's records are damaged; start a new run.
	TurnRequestInvalid Code = "turn_request_invalid"
)
