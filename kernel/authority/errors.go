package authority

import "github.com/runxhq/runx/sdk/errcode"

// Codes name every refusal this package makes. They are part of runx's public
// contract (`--json` errors carry them), so a code is never renamed or reused.
const ()

// Error is a refusal: a typed answer with a stable code, never a transport
// failure. Rule names what refused (a layer's effects, a standing approval,
// a secret pattern, a limit) so records and receipts can cite it on its own;
// Message already includes it, so printing the error alone says why.
type Error struct {
	Code    errcode.Code `json:"code"`
	Message string       `json:"message"`
	Rule    string       `json:"rule,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// ErrorCode is the stable code, so presentation reads it without knowing this type.
func (e *Error) ErrorCode() errcode.Code { return e.Code }

// refusal builds an *Error whose message is what happened followed by the
// rule that decided it, so no refusal can be printed without its rule.
func refusal(code errcode.Code, rule, what string) *Error {
	msg := what
	if rule != "" {
		msg = what + " (" + rule + ")"
	}
	return &Error{Code: code, Message: msg, Rule: rule}
}

// docError is a refusal of the authority document itself; the rule is the
// document field at fault (or "document" for the whole), so a person knows
// which line to fix.
func docError(code errcode.Code, field, what string) *Error {
	if field == "" {
		field = "document"
	}
	return &Error{Code: code, Message: "authority " + field + ": " + what, Rule: field}
}
