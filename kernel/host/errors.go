package host

import (
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
)

// Error is a typed host failure with a stable snake_case code.
type Error struct {
	Code    errcode.Code
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// ErrPluginUnavailable is wrapped by every error meaning the plugin process
// went away under a call: crashed, killed, or its transport broke.
var ErrPluginUnavailable = errors.New("plugin unavailable")

func hostErr(code errcode.Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// Codes.

// ErrorCode is the stable code.
func (e *Error) ErrorCode() errcode.Code { return e.Code }
