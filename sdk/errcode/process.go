package errcode

// Processes: The process plugin: commands, process tools and long-lived processes.
const (
	// CommandArgvTooLarge: An argument is over the per-argument ceiling.
	// Do: Pass large content in a file.
	CommandArgvTooLarge Code = "command_argv_too_large"

	// CommandCwdInvalid: The command's working directory is not a directory in the workspace.
	// Do: Name a directory inside the workspace.
	CommandCwdInvalid Code = "command_cwd_invalid"

	// CommandEnvironmentInvalid: The command call's binding is malformed.
	// Do: Run the command through runx, which binds it.
	CommandEnvironmentInvalid Code = "command_environment_invalid"

	// CommandRequestInvalid: The command call's input is malformed.
	// Do: Fix the field the message names.
	CommandRequestInvalid Code = "command_request_invalid"

	// ProcessActorForbidden: A run asked for another actor's processes.
	// Do: List only your own processes.
	ProcessActorForbidden Code = "process_actor_forbidden"

	// ProcessArgvEmpty: process.run was given no command.
	// Do: Give argv with a command.
	ProcessArgvEmpty Code = "process_argv_empty"

	// ProcessCallConflict: The call id already started a process with a different request.
	// Do: Start a different process under a new call.
	ProcessCallConflict Code = "process_call_conflict"

	// ProcessCommandNotFound: The command was not found.
	// Do: Install it, or name it by a path.
	ProcessCommandNotFound Code = "process_command_not_found"

	// ProcessControlInvalid: The process supervisor was sent an operation it does not know.
	// Do: Report it: this is a bug.
	ProcessControlInvalid Code = "process_control_invalid"

	// ProcessCursorInvalid: The cursor is not one process.read returned.
	// Do: Read from the start, or use the cursor a read returned.
	ProcessCursorInvalid Code = "process_cursor_invalid"

	// ProcessCwdInvalid: The working directory is not a directory.
	// Do: Name an existing directory.
	ProcessCwdInvalid Code = "process_cwd_invalid"

	// ProcessCwdMissing: process.run was given no absolute working directory.
	// Do: Give an absolute working directory.
	ProcessCwdMissing Code = "process_cwd_missing"

	// ProcessCwdOutsidePackage: A step's cwd leaves the package.
	// Do: Name a directory inside the package.
	ProcessCwdOutsidePackage Code = "process_cwd_outside_package"

	// ProcessEnvironmentMissing: A step needs an environment variable that is not set.
	// Do: Export the variable the message names.
	ProcessEnvironmentMissing Code = "process_environment_missing"

	// ProcessExitNonzero: The process exited with a non-zero status.
	// Do: Read its output to see why it failed.
	ProcessExitNonzero Code = "process_exit_nonzero"

	// ProcessInputUnsupported: The process takes no input.
	// Do: Do not write to this process.
	ProcessInputUnsupported Code = "process_input_unsupported"

	// ProcessLogUnreadable: The process's log cannot be read.
	// Do: Check the project's .runx directory.
	ProcessLogUnreadable Code = "process_log_unreadable"

	// ProcessNotATerminal: The process runs without a terminal.
	// Do: Resize only processes started with a terminal.
	ProcessNotATerminal Code = "process_not_a_terminal"

	// ProcessNotFound: No process by that id in this project.
	// Do: Use an id process.list shows.
	ProcessNotFound Code = "process_not_found"

	// ProcessNotRunning: The process has exited.
	// Do: Start it again if it is still wanted.
	ProcessNotRunning Code = "process_not_running"

	// ProcessOutputInvalid: The process plugin could not encode its answer.
	// Do: Report it: this is a bug in the plugin.
	ProcessOutputInvalid Code = "process_output_invalid"

	// ProcessOutputNotJSON: A process tool did not print exactly one JSON object on stdout.
	// Do: Make the tool print one JSON object.
	ProcessOutputNotJSON Code = "process_output_not_json"

	// ProcessOutputTooLarge: The command printed more than its output ceiling and was killed.
	// Do: Print less, or write large output to a file.
	ProcessOutputTooLarge Code = "process_output_too_large"

	// ProcessRequestInvalid: The process call's input is malformed.
	// Do: Fix the field the message names.
	ProcessRequestInvalid Code = "process_request_invalid"

	// ProcessResizeFailed: The process's terminal could not be resized.
	// Do: Retry; read the reason in the message.
	ProcessResizeFailed Code = "process_resize_failed"

	// ProcessSignalled: The process was killed by a signal.
	// Do: Read its output to see why it stopped.
	ProcessSignalled Code = "process_signalled"

	// ProcessStartFailed: The process did not start.
	// Do: Read the reason in the message.
	ProcessStartFailed Code = "process_start_failed"

	// ProcessStateUnavailable: The call names no project state directory, so no process can be kept.
	// Do: Run the call through runx, which binds it.
	ProcessStateUnavailable Code = "process_state_unavailable"

	// ProcessStateUnreadable: The process's record cannot be read.
	// Do: Check the project's .runx directory.
	ProcessStateUnreadable Code = "process_state_unreadable"

	// ProcessStopFailed: The process could not be stopped.
	// Do: Read the reason in the message; stop it by hand if needed.
	ProcessStopFailed Code = "process_stop_failed"

	// ProcessStopped: The process was stopped.
	// Do: Run the step again if it is still wanted.
	ProcessStopped Code = "process_stopped"

	// ProcessTimeout: The process ran past its timeout and its process group was killed.
	// Do: Make it faster, or raise its timeout.
	ProcessTimeout Code = "process_timeout"

	// ProcessTimeoutInvalid: The timeout is out of range.
	// Do: Give a timeout within the range the message states.
	ProcessTimeoutInvalid Code = "process_timeout_invalid"

	// ProcessUnreachable: The process's supervisor did not answer.
	// Do: Retry; if it persists, stop and start the process again.
	ProcessUnreachable Code = "process_unreachable"

	// ProcessWaitFailed: Waiting for the process failed.
	// Do: Read the reason in the message.
	ProcessWaitFailed Code = "process_wait_failed"

	// ProcessWriteBlocked: Writing to the process's input did not complete before its deadline.
	// Do: Write less, or let the process read its input first.
	ProcessWriteBlocked Code = "process_write_blocked"

	// ProcessWriteFailed: Writing to the process's input failed.
	// Do: Read the reason in the message.
	ProcessWriteFailed Code = "process_write_failed"
)
