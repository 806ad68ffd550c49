package authority

// Codes name every refusal this package makes. They are part of runx's public
// contract (`--json` errors carry them), so a code is never renamed or reused.
const (
	// The authority document.
	CodeInvalidJSON    = "authority_invalid_json"
	CodeTooLarge       = "authority_too_large"
	CodeUnknownField   = "authority_unknown_field"
	CodeInvalidType    = "authority_invalid_type"
	CodeInvalidValue   = "authority_invalid_value"
	CodeMissingField   = "authority_missing_field"
	CodeDuplicateEntry = "authority_duplicate_entry"

	// The approval floor.
	CodeEffectsNoneRefused    = "effects_none_refused"
	CodeTurnStoreWriteRefused = "turn_store_write_refused"
	CodeChangeInvalid         = "change_invalid"

	// Reach.
	CodeReachOutsideWorkspace = "reach_outside_workspace"
	CodeReachOutsideInputs    = "reach_outside_inputs"
	CodeReachProtectedDir     = "reach_protected_dir"
	CodeReachSecretRefused    = "reach_secret_refused"
	CodeReachPathInvalid      = "reach_path_invalid"

	// Limits and packages.
	CodeHostCeilingInvalid      = "host_ceiling_invalid"
	CodeCostLimitExceeded       = "cost_limit_exceeded"
	CodeFanoutLimitExceeded     = "fanout_limit_exceeded"
	CodeChildDepthLimitExceeded = "child_depth_limit_exceeded"
	CodeSpendAmountInvalid      = "spend_amount_invalid"
	CodePackageNotCovered       = "package_not_covered"
)

// Error is a refusal: a typed answer with a stable code, never a transport
// failure. Rule names what refused (a layer's effects, a standing approval,
// a secret pattern, a limit) so records and receipts can cite it on its own;
// Message already includes it, so printing the error alone says why.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Rule    string `json:"rule,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// ErrorCode is the stable code, so presentation reads it without knowing this type.
func (e *Error) ErrorCode() string { return e.Code }

// refusal builds an *Error whose message is what happened followed by the
// rule that decided it, so no refusal can be printed without its rule.
func refusal(code, rule, what string) *Error {
	msg := what
	if rule != "" {
		msg = what + " (" + rule + ")"
	}
	return &Error{Code: code, Message: msg, Rule: rule}
}

// docError is a refusal of the authority document itself; the rule is the
// document field at fault (or "document" for the whole), so a person knows
// which line to fix.
func docError(code, field, what string) *Error {
	if field == "" {
		field = "document"
	}
	return &Error{Code: code, Message: "authority " + field + ": " + what, Rule: field}
}
