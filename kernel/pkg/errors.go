package pkg

import (
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
)

// Codes name every refusal this package makes. They are part of runx's public
// contract (`--json` errors carry them), so a code is never renamed or reused.

// Position is a 1-based line and column in a source file.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Error is a refusal: something an author or a caller can fix. A Go error of
// any other type from this package means an I/O failure or a bug.
type Error struct {
	Code    errcode.Code `json:"code"`
	Message string       `json:"message"`
	File    string       `json:"file,omitempty"`
	Line    int          `json:"line,omitempty"`
	Column  int          `json:"column,omitempty"`

	cause error // what the refusal was made from, for errors.As (a *schema.Error)
}

// Unwrap returns the typed error the refusal was made from, if any.
func (e *Error) Unwrap() error { return e.cause }

// Error prints the location the way compilers do, so editors can jump to it.
func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Message)
	}
	return e.Message
}

// Is makes errors.Is(err, &Error{Code: c}) match any refusal with code c, so
// callers compare codes without caring about messages or positions.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code != "" && t.Code == e.Code
}

// CodeOf returns the code of the refusal in err's chain, or "" when err is not
// a refusal.
func CodeOf(err error) errcode.Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func refuse(code errcode.Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func refuseAt(file string, pos Position, code errcode.Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), File: file, Line: pos.Line, Column: pos.Column}
}
