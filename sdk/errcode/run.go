package errcode

// Runs: Running a skill's steps: admission, inputs and outputs, fan-out, guards, results and the run's
// own bounds.
const (
	// AlreadyDoneBindingChanged: The act under this key was done when its connector or operation stood
	// otherwise; nothing was sent.
	// Do: Use a new idempotency key for the changed operation.
	AlreadyDoneBindingChanged Code = "already_done_binding_changed"

	// ApprovalDeclined: A person declined the step.
	// Do: Nothing to do; the run sealed as declined.
	ApprovalDeclined Code = "approval_declined"

	// AttemptUnsettled: An earlier attempt under this key is not settled; nothing was sent again.
	// Do: Settle the earlier run first (resume or close it).
	AttemptUnsettled Code = "attempt_unsettled"

	// BindingClosureMismatch: The closure digest the host states is not the run's.
	// Do: Use the digest runx printed for this run.
	BindingClosureMismatch Code = "binding_closure_mismatch"

	// BindingPackageMismatch: The package digest the host states is not the run's.
	// Do: Use the digest runx printed for this run.
	BindingPackageMismatch Code = "binding_package_mismatch"

	// ChildBlocked: A child run sealed blocked without an error of its own.
	// Do: Read the child's receipt (runx history <child run id>) for what blocked it.
	ChildBlocked Code = "child_blocked"

	// ChildDeclined: A child run sealed declined without an error of its own.
	// Do: Nothing to do unless the child should run; a person declined it.
	ChildDeclined Code = "child_declined"

	// ChildFailed: A child run sealed failed without an error of its own.
	// Do: Read the child's receipt (runx history <child run id>) for the step that failed.
	ChildFailed Code = "child_failed"

	// ChildKilled: A child run was killed.
	// Do: Run it again if it is still wanted.
	ChildKilled Code = "child_killed"

	// ChildRefused: A child run sealed refused without an error of its own.
	// Do: Read the child's receipt for the refusal and fix its inputs or authority.
	ChildRefused Code = "child_refused"

	// ChildSuperseded: A child run sealed superseded without an error of its own.
	// Do: Nothing to do; a later run took its place.
	ChildSuperseded Code = "child_superseded"

	// EffectUnconfirmed: A call that may have acted got no confirmation; the run waits for a person's
	// decision.
	// Do: Check the provider, then resume with {"retry": true} or {"retry": false}.
	EffectUnconfirmed Code = "effect_unconfirmed"

	// ForEachItemNotRun: A fan-out item did not run because an earlier item failed.
	// Do: Fix the failed item, then run again.
	ForEachItemNotRun Code = "for_each_item_not_run"

	// ForEachNotArray: for_each did not resolve to an array.
	// Do: Point for_each at an array.
	ForEachNotArray Code = "for_each_not_array"

	// ForEachUnresolved: for_each could not be resolved.
	// Do: Fix the reference the message names.
	ForEachUnresolved Code = "for_each_unresolved"

	// ForEachUnsupported: for_each on a step kind that does not fan out.
	// Do: Fan out tools, modules, commands or skills.
	ForEachUnsupported Code = "for_each_unsupported"

	// GuardFailed: A step's when could not be evaluated, or gave no boolean.
	// Do: Fix the expression the message names.
	GuardFailed Code = "guard_failed"

	// GuardInvalid: A step's when does not compile, or is not a boolean expression.
	// Do: Fix the expression the message names.
	GuardInvalid Code = "guard_invalid"

	// HostClosed: The host closed the run.
	// Do: Nothing to do; start a new run if still wanted.
	HostClosed Code = "host_closed"

	// JournalRecordInvalid: A journal record of the run does not decode.
	// Do: The run's records are damaged; start a new run.
	JournalRecordInvalid Code = "journal_record_invalid"

	// MethodConflict: The reference names one method and the command another.
	// Do: Name the method once.
	MethodConflict Code = "method_conflict"

	// PayloadArtifactDamaged: A kept request payload is no longer the content that was kept.
	// Do: Start a new run; do not edit the artifact store by hand.
	PayloadArtifactDamaged Code = "payload_artifact_damaged"

	// PayloadArtifactUnavailable: A request payload too large to inline could not be kept in the
	// artifact store.
	// Do: Check the project's .runx directory (space, permissions).
	PayloadArtifactUnavailable Code = "payload_artifact_unavailable"

	// PluginAnswerTooLarge: The run's plugins would answer more than the run's bound on answer bytes.
	// Do: Raise RUNX_MAX_PLUGIN_ANSWER_BYTES, or ask less of the calls.
	PluginAnswerTooLarge Code = "plugin_answer_too_large"

	// ResultContractMissing: A result producer whose outputs nothing declares.
	// Do: Declare the step's outputs.
	ResultContractMissing Code = "result_contract_missing"

	// ResultContractViolated: A method's result lacks a declared output, or has the wrong type.
	// Do: Fix the steps that produce the result, or the declaration.
	ResultContractViolated Code = "result_contract_violated"

	// ResultFromUnknown: result_from names something that is not a step.
	// Do: Name a step of the method.
	ResultFromUnknown Code = "result_from_unknown"

	// ResultKeyCollision: Two result producers emit the same key and their guards are not provably
	// exclusive.
	// Do: Make the guards exclusive (x and !x), or rename a key.
	ResultKeyCollision Code = "result_key_collision"

	// RunClosureDrift: A package the run is bound to changed while it ran; the child was not started.
	// Do: Start a new run.
	RunClosureDrift Code = "run_closure_drift"

	// RunDrivenElsewhere: Another runx process drives the run.
	// Do: Wait for it, or stop it.
	RunDrivenElsewhere Code = "run_driven_elsewhere"

	// RunTransitionRefused: The run's record cannot make this change of state (a sealed run driven,
	// paused or sealed again); nothing was recorded.
	// Do: Read the run with runx history; a sealed run takes nothing new, so start a new run.
	RunTransitionRefused Code = "run_transition_refused"

	// RunxHomeUnknown: runx cannot find a home directory.
	// Do: Set RUNX_HOME.
	RunxHomeUnknown Code = "runx_home_unknown"

	// StepInputInvalid: A step's input is malformed.
	// Do: Fix the input the message names.
	StepInputInvalid Code = "step_input_invalid"

	// StepInputMissing: A step does not pass an input the called method requires.
	// Do: Pass the input.
	StepInputMissing Code = "step_input_missing"

	// StepInputTypeMismatch: A step's input has another type than the called method declares.
	// Do: Pass the declared type.
	StepInputTypeMismatch Code = "step_input_type_mismatch"

	// StepInputUnknown: A step passes an input the called method does not declare.
	// Do: Remove the input.
	StepInputUnknown Code = "step_input_unknown"

	// StepInputUnresolved: A step's input reference could not be resolved.
	// Do: Fix the reference the message names.
	StepInputUnresolved Code = "step_input_unresolved"

	// StepKindUnsupported: A step kind this runx does not run yet; no step was started.
	// Do: Upgrade runx, or use another step kind.
	StepKindUnsupported Code = "step_kind_unsupported"

	// StepOutputInvalid: A step's output does not match its declared outputs.
	// Do: Fix the step, or its declared outputs.
	StepOutputInvalid Code = "step_output_invalid"

	// StepOutputMissing: A step did not produce a declared output.
	// Do: Fix the step, or its declared outputs.
	StepOutputMissing Code = "step_output_missing"

	// TestClockInvalid: RUNX_TEST_NOW is not an RFC 3339 time.
	// Do: Give an RFC 3339 time.
	TestClockInvalid Code = "test_clock_invalid"
)
