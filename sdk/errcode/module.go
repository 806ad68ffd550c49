package errcode

// JavaScript modules and scripts: The jsworker plugin: deterministic modules and scripts.
const (
	// ModuleCancelled: The module call was cancelled.
	// Do: Make the call again.
	ModuleCancelled Code = "module_cancelled"

	// ModuleClockMissing: The module call carries no run clock; the worker never reads the host's.
	// Do: Run the module through runx, which gives the run's clock.
	ModuleClockMissing Code = "module_clock_missing"

	// ModuleCrashed: The JavaScript engine failed in a way that is not the module's fault; the worker
	// is discarded.
	// Do: Retry; if it persists, report it.
	ModuleCrashed Code = "module_crashed"

	// ModuleImportAbsolute: The module imports an absolute path.
	// Do: Import package files by relative path.
	ModuleImportAbsolute Code = "module_import_absolute"

	// ModuleImportBare: The module imports a bare package specifier.
	// Do: Vendor the code into the package and import it by relative path.
	ModuleImportBare Code = "module_import_bare"

	// ModuleImportBuiltin: The module imports a Node.js built-in module, which deterministic modules
	// do not have.
	// Do: Remove the import.
	ModuleImportBuiltin Code = "module_import_builtin"

	// ModuleImportDynamic: The module loads code with import() or require().
	// Do: Use static import declarations only.
	ModuleImportDynamic Code = "module_import_dynamic"

	// ModuleImportEscape: An import resolves outside the package.
	// Do: Keep imported files inside the package.
	ModuleImportEscape Code = "module_import_escape"

	// ModuleImportExtension: An import names a file without a .js or .mjs extension.
	// Do: Name the imported file with its extension.
	ModuleImportExtension Code = "module_import_extension"

	// ModuleImportMissing: An import names a file that is not in the module closure.
	// Do: Ship the file in the package, or fix the path.
	ModuleImportMissing Code = "module_import_missing"

	// ModuleImportURL: The module imports a URL.
	// Do: Ship the file in the package and import it by relative path.
	ModuleImportURL Code = "module_import_url"

	// ModuleInputInvalid: The module's input is not JSON it can take (too deep, malformed).
	// Do: Fix the input at the place the message names.
	ModuleInputInvalid Code = "module_input_invalid"

	// ModuleInputTooLarge: The module's input is over its byte ceiling.
	// Do: Pass large content as an artifact.
	ModuleInputTooLarge Code = "module_input_too_large"

	// ModuleInputUnsafeInteger: An input integer is outside JavaScript's safe integer range.
	// Do: Pass exact large ids or amounts as strings.
	ModuleInputUnsafeInteger Code = "module_input_unsafe_integer"

	// ModuleJobsExceeded: The module queued more promise jobs than allowed.
	// Do: Queue fewer promises at once.
	ModuleJobsExceeded Code = "module_jobs_exceeded"

	// ModuleMemoryExceeded: The module would use more memory than its heap ceiling.
	// Do: Build smaller values.
	ModuleMemoryExceeded Code = "module_memory_exceeded"

	// ModuleNoDefaultExport: The entry module has no default export function.
	// Do: Write export default function (input, { environment }) { ... }.
	ModuleNoDefaultExport Code = "module_no_default_export"

	// ModuleOutputInvalid: The module's output is not JSON (a BigInt, a non-finite number, a cycle).
	// Do: Return plain JSON values.
	ModuleOutputInvalid Code = "module_output_invalid"

	// ModuleOutputTooLarge: The module's output is over its byte ceiling.
	// Do: Return less, or keep large content as an artifact.
	ModuleOutputTooLarge Code = "module_output_too_large"

	// ModulePromisePending: The module's promise never settled.
	// Do: Make the module settle its promise; there are no timers or I/O to wait on.
	ModulePromisePending Code = "module_promise_pending"

	// ModuleRequestInvalid: The module call's input is not one JSON document.
	// Do: Send one JSON document.
	ModuleRequestInvalid Code = "module_request_invalid"

	// ModuleRequiresUnknown: A module requires a helper its worker does not provide.
	// Do: Require only the helpers the message lists.
	ModuleRequiresUnknown Code = "module_requires_unknown"

	// ModuleRequiresUnsupported: The module requires a Runx helper this runtime does not provide.
	// Do: Require only the helpers the message lists.
	ModuleRequiresUnsupported Code = "module_requires_unsupported"

	// ModuleSourceInvalid: A module closure file is not a clean path inside the package.
	// Do: Keep module files inside the package.
	ModuleSourceInvalid Code = "module_source_invalid"

	// ModuleSourceTooDeep: The module source nests deeper than the parsers allow.
	// Do: Flatten the nesting.
	ModuleSourceTooDeep Code = "module_source_too_deep"

	// ModuleSourceTooLarge: The package's JavaScript is over the module source ceiling.
	// Do: Ship less JavaScript.
	ModuleSourceTooLarge Code = "module_source_too_large"

	// ModuleStackExceeded: The module exceeded its call stack.
	// Do: Recurse less deeply.
	ModuleStackExceeded Code = "module_stack_exceeded"

	// ModuleSymlinkRefused: A module file is a symbolic link.
	// Do: Ship the package's JavaScript as regular files inside it.
	ModuleSymlinkRefused Code = "module_symlink_refused"

	// ModuleSyntaxError: The module does not compile.
	// Do: Fix the syntax error at the place the message names.
	ModuleSyntaxError Code = "module_syntax_error"

	// ModuleThrew: The module threw or its promise rejected.
	// Do: Read the module's error in the message and fix the module or its input.
	ModuleThrew Code = "module_threw"

	// ModuleTimeout: The module ran longer than its timeout.
	// Do: Make it faster, or raise timeout_seconds (at most 30).
	ModuleTimeout Code = "module_timeout"

	// ModuleTimeoutInvalid: A module's timeout is out of range.
	// Do: Give timeout_seconds from 1 to 30.
	ModuleTimeoutInvalid Code = "module_timeout_invalid"

	// ScriptMaxCallsExceeded: The script made more calls than its max_calls.
	// Do: Raise max_calls, or make fewer calls.
	ScriptMaxCallsExceeded Code = "script_max_calls_exceeded"

	// ScriptMaxCallsInvalid: max_calls is out of range.
	// Do: Give a max_calls within the range the message states.
	ScriptMaxCallsInvalid Code = "script_max_calls_invalid"

	// ScriptNondeterministic: A replay of the script asked for other calls than the run it replays.
	// Do: Make the script deterministic: the same input must make the same calls.
	ScriptNondeterministic Code = "script_nondeterministic"

	// ScriptRecordInvalid: The script's record of earlier calls is malformed.
	// Do: The run's records are damaged; start a new run.
	ScriptRecordInvalid Code = "script_record_invalid"
)
