package errcode

// Turns and calls: Agent turns, the calls a turn makes, tools and ask_human.
const (
	// AskHumanCallIDRequired: ask_human was called without a call_id.
	// Do: Give a call_id; the same call made again collects the answer.
	AskHumanCallIDRequired Code = "ask_human_call_id_required"

	// AskHumanInputInvalid: ask_human's input is malformed.
	// Do: Give {reason} or {questions: [...]}.
	AskHumanInputInvalid Code = "ask_human_input_invalid"

	// CallActUnsupported: A call states an act, which only a skill call may.
	// Do: Remove act, or call a skill.
	CallActUnsupported Code = "call_act_unsupported"

	// CallIDConflict: The call_id names a call of this turn made with another tool or input.
	// Do: Use a new call_id for a new call.
	CallIDConflict Code = "call_id_conflict"

	// CallInputInvalid: A call's input is not a JSON object.
	// Do: Give a JSON object.
	CallInputInvalid Code = "call_input_invalid"

	// CallInterrupted: The run was stopped while the call ran.
	// Do: Resume the run to take it up.
	CallInterrupted Code = "call_interrupted"

	// CallNotAllowed: The turn has no tool by that name.
	// Do: Call a tool the turn offers.
	CallNotAllowed Code = "call_not_allowed"

	// CallReuseInvalid: A reuse option is not {max_age_seconds: n}.
	// Do: Write it as {max_age_seconds: <seconds>}.
	CallReuseInvalid Code = "call_reuse_invalid"

	// CallReuseUnsupported: reuse on a call that is not a skill call.
	// Do: Make the call without reuse.
	CallReuseUnsupported Code = "call_reuse_unsupported"

	// CallUnknown: The address names no call of the run.
	// Do: Use an address turn_list shows.
	CallUnknown Code = "call_unknown"

	// ContextSkillTooLarge: A context skill an agent step reads is over its bound.
	// Do: Keep each context skill's SKILL.md within 64 KiB and a turn's together within 256 KiB; split or trim it.
	ContextSkillTooLarge Code = "context_skill_too_large"

	// LoadDeclined: The person did not trust the package a turn loaded.
	// Do: Load another package, or end the turn without it.
	LoadDeclined Code = "load_declined"

	// LoadInputInvalid: A load's input is not {skill: "<publisher>/<name>[@version]"}.
	// Do: Name the package to load as <publisher>/<name>[@version].
	LoadInputInvalid Code = "load_input_invalid"

	// LoadNotAllowed: A turn loaded a package no rule of its step's calls.load names.
	// Do: Load a package its rules name, or add a rule to the step's calls.load.
	LoadNotAllowed Code = "load_not_allowed"

	// NativeInputInvalid: A runx tool's input is malformed.
	// Do: Fix the input the message names.
	NativeInputInvalid Code = "native_input_invalid"

	// NativeInputUnknown: A runx tool was given inputs it does not take.
	// Do: Remove the inputs the message names.
	NativeInputUnknown Code = "native_input_unknown"

	// ToolUnknown: A tool id no installed plugin describes.
	// Do: Check the id with runx tool list.
	ToolUnknown Code = "tool_unknown"

	// TurnCallChildUnsettled: A skill call neither settled nor waits on its child.
	// Do: Resume the run; report it if it persists.
	TurnCallChildUnsettled Code = "turn_call_child_unsettled"

	// TurnCallChildUnsupported: A call in the turns of a child run started by a fan-out or a script.
	// Do: Make calls only in turns of a skill step's child.
	TurnCallChildUnsupported Code = "turn_call_child_unsupported"

	// TurnFailed: The agent reported the turn failed.
	// Do: Read the agent's reason in the message.
	TurnFailed Code = "turn_failed"

	// TurnNotAgent: The address is not an agent turn.
	// Do: Answer a person's request under approvals.
	TurnNotAgent Code = "turn_not_agent"

	// TurnUnknown: The run waits on no turn at that address.
	// Do: Use an address turn_list shows.
	TurnUnknown Code = "turn_unknown"
)
