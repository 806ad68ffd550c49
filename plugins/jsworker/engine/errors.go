package engine

import (
	"fmt"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/errcode"
)

// Codes an *Error carries. They are stable snake_case strings because they
// cross the plugin protocol and land in receipts.
const ()

// Error is a typed refusal or failure of a module. Code is one of the Code
// constants; Message says what happened and never holds a secret (it may
// quote module text, bounded to MaxMessageBytes). Discard asks the host to
// throw this worker process away: the engine could not prove the process is
// still healthy (a timeout, a memory fault, a crash, a VM that would not stop).
type Error struct {
	Code    errcode.Code
	Message string
	Discard bool
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// refuse builds an *Error whose message is bounded to MaxMessageBytes.
func refuse(code errcode.Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: bound(fmt.Sprintf(format, args...))}
}

// fault builds an *Error that also asks for the process to be discarded.
func fault(code errcode.Code, format string, args ...any) *Error {
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
