package engine

import (
	"fmt"
	"unicode/utf8"
)

// Codes an *Error carries. They are stable snake_case strings because they
// cross the plugin protocol and land in receipts.
const (
	// Bundle refusals.
	CodeSourceTooLarge      = "module_source_too_large"
	CodeSourceInvalid       = "module_source_invalid"
	CodeSourceTooDeep       = "module_source_too_deep"
	CodeSyntaxError         = "module_syntax_error"
	CodeNoDefaultExport     = "module_no_default_export"
	CodeImportBare          = "module_import_bare"
	CodeImportBuiltin       = "module_import_builtin"
	CodeImportURL           = "module_import_url"
	CodeImportAbsolute      = "module_import_absolute"
	CodeImportEscape        = "module_import_escape"
	CodeImportMissing       = "module_import_missing"
	CodeImportExtension     = "module_import_extension"
	CodeImportDynamic       = "module_import_dynamic"
	CodeRequiresUnsupported = "module_requires_unsupported"

	// Call refusals, before the module runs.
	CodeTimeoutInvalid     = "module_timeout_invalid"
	CodeInputTooLarge      = "module_input_too_large"
	CodeInputInvalid       = "module_input_invalid"
	CodeInputUnsafeInteger = "module_input_unsafe_integer"

	// Call failures. Those that ask to discard the process say so in
	// Error.Discard: timeout, memory, crash, and any stop the VM ignored.
	CodeOutputTooLarge = "module_output_too_large"
	CodeOutputInvalid  = "module_output_invalid"
	CodeThrew          = "module_threw"
	CodePromisePending = "module_promise_pending"
	CodeStackExceeded  = "module_stack_exceeded"
	CodeJobsExceeded   = "module_jobs_exceeded"
	CodeTimeout        = "module_timeout"
	CodeMemoryExceeded = "module_memory_exceeded"
	CodeCancelled      = "module_cancelled"
	CodeCrashed        = "module_crashed"

	// Script refusals and failures (RunScript). A script also fails with
	// any of the call codes above.
	CodeScriptMaxCallsInvalid  = "script_max_calls_invalid"
	CodeScriptRecordInvalid    = "script_record_invalid"
	CodeScriptNondeterministic = "script_nondeterministic"
	CodeScriptMaxCallsExceeded = "script_max_calls_exceeded"
)

// Error is a typed refusal or failure of a module. Code is one of the Code
// constants; Message says what happened and never holds a secret (it may
// quote module text, bounded to MaxMessageBytes). Discard asks the host to
// throw this worker process away: the engine could not prove the process is
// still healthy (a timeout, a memory fault, a crash, a VM that would not stop).
type Error struct {
	Code    string
	Message string
	Discard bool
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// refuse builds an *Error whose message is bounded to MaxMessageBytes.
func refuse(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: bound(fmt.Sprintf(format, args...))}
}

// fault builds an *Error that also asks for the process to be discarded.
func fault(code, format string, args ...any) *Error {
	e := refuse(code, format, args...)
	e.Discard = true
	return e
}

// bound cuts s to MaxMessageBytes on a rune boundary.
func bound(s string) string {
	if len(s) <= MaxMessageBytes {
		return s
	}
	const ellipsis = "…"
	cut := MaxMessageBytes - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
