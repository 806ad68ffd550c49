package contract

import (
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
)

// ErrorBody is how an error travels in JSON: a stable snake_case code and a
// message a person can act on. It never holds a secret or echoes a rejected
// document.
type ErrorBody struct {
	Code    errcode.Code `json:"code"`
	Message string       `json:"message"`
	// Detail carries structured facts a reader needs beside the message
	// (never a secret).
	Detail any `json:"detail,omitempty"`
}

// Error is a typed refusal or user error raised inside the kernel.
type Error struct {
	Code    errcode.Code
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes a typed error.
func Errorf(code errcode.Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Coded is any error that carries a stable code; every package's typed error
// satisfies it so presentation can read the code without knowing the type.
type Coded interface {
	error
	ErrorCode() errcode.Code
}

// ErrorCode returns the code.
func (e *Error) ErrorCode() errcode.Code { return e.Code }

// CodeOf returns the stable code an error carries, or "internal_error".
func CodeOf(err error) errcode.Code {
	var c Coded
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return errcode.InternalError
}

// BodyOf converts any error into its JSON form.
func BodyOf(err error) *ErrorBody {
	if err == nil {
		return nil
	}
	return &ErrorBody{Code: CodeOf(err), Message: err.Error()}
}
