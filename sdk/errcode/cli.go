package errcode

// Command line: Refusals of the runx command itself, before or around a run.
const (
	// HistoryFlagsConflict: runx history was given --payload together with --after.
	// Do: Read a payload with --payload alone, or events with --after alone.
	HistoryFlagsConflict Code = "history_flags_conflict"

	// HistoryPayloadNeedsRun: runx history --payload was given no run id.
	// Do: Give the run id whose request payload you want.
	HistoryPayloadNeedsRun Code = "history_payload_needs_run"

	// InputsDocumentOutsideWorkspace: The --inputs file lies outside the workspace.
	// Do: Put the inputs file inside the workspace.
	InputsDocumentOutsideWorkspace Code = "inputs_document_outside_workspace"

	// InputsDocumentUnreadable: The --inputs file cannot be read or is not a regular file.
	// Do: Check the path and its permissions.
	InputsDocumentUnreadable Code = "inputs_document_unreadable"

	// InternalError: An error that carries no code: a bug or an I/O failure inside runx.
	// Do: Read the message; if it is not an I/O problem you can fix, report it.
	InternalError Code = "internal_error"

	// Interrupted: runx was interrupted by a signal and stopped; a run it was driving stays where it was.
	// Do: Continue the run the message names with runx resume <run-id>; when it names none, no run step ran:
	// run the command again.
	Interrupted Code = "interrupted"

	// JQFailed: The --jq expression failed on the command's document (an error it raised, a value of the
	// wrong type, or it ran past its time bound).
	// Do: Fix the expression against the command's --json document.
	JQFailed Code = "jq_failed"

	// JQInvalid: The --jq expression does not parse or compile as jq.
	// Do: Fix the expression's syntax; runx's --jq speaks jq's language (gojq).
	JQInvalid Code = "jq_invalid"

	// JQUnsupported: --jq was given to a command that prints no JSON document (it has no --json).
	// Do: Drop --jq; only a command with --json takes it.
	JQUnsupported Code = "jq_unsupported"

	// SecretStdinTerminal: runx secret set was run with a terminal on standard input; a secret is read
	// only from a pipe.
	// Do: Pipe the secret in: runx secret set <name> reads it from standard input.
	SecretStdinTerminal Code = "secret_stdin_terminal"

	// SecretTooLarge: The secret on standard input is over the size a secret may have.
	// Do: Store a smaller secret.
	SecretTooLarge Code = "secret_too_large"

	// StoreURLInvalid: --parameter url is not a SQLite path, a postgres:// URL or a redis:// URL.
	// Do: Give one of those forms.
	StoreURLInvalid Code = "store_url_invalid"

	// UsageError: The command line is wrong: an unknown flag, a missing argument, or flags that do not
	// go together.
	// Do: Run the command with --help and fix the arguments.
	UsageError Code = "usage_error"
)
