package driver

import (
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
)

// Code is the stable snake_case code of a store refusal or failure, one of
// the registry's (sdk/errcode). Codes are part of the wire contract: add new
// ones, never rename.
type Code = errcode.Code

// Refusal reports whether the code is a refusal of the request rather than a
// failure of the provider.
func Refusal(c Code) bool {
	switch c {
	case errcode.ProviderUnavailable, errcode.AmbiguousCommit, errcode.StoreCorrupt:
		return false
	}
	return true
}

// Error is a typed store refusal or failure. Its message says what to do and
// never holds a credential or an event payload.
type Error struct {
	Code    Code
	Message string
	// CurrentVersion is the stream's version when it is known to the answer:
	// always for version_conflict and idempotency_conflict.
	CurrentVersion *int64
	// Evidence is provider evidence for diagnosis: stage, SQLSTATE, commit
	// state, server error class. Never credentials, never payloads.
	Evidence map[string]string
	cause    error
}

func (e *Error) Error() string {
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the provider error behind a failure, for logs and errors.Is.
// Its text has passed through the driver's scrubber.
func (e *Error) Unwrap() error { return e.cause }

// Is matches another *Error by code, so errors.Is(err, ErrVersionConflict)
// works for every error a driver returns.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code
	}
	return false
}

// Sentinels for errors.Is. They carry only a code.
var (
	ErrInvalidRequest          = &Error{Code: errcode.InvalidRequest}
	ErrSchemaRequired          = &Error{Code: errcode.SchemaRequired}
	ErrBroadRead               = &Error{Code: errcode.BroadRead}
	ErrIdempotencyKeyRequired  = &Error{Code: errcode.IdempotencyKeyRequired}
	ErrInvalidEvent            = &Error{Code: errcode.InvalidEvent}
	ErrEventTooLarge           = &Error{Code: errcode.EventTooLarge}
	ErrPageLimitExceeded       = &Error{Code: errcode.PageLimitExceeded}
	ErrResponseTooLarge        = &Error{Code: errcode.ResponseTooLarge}
	ErrVersionConflict         = &Error{Code: errcode.VersionConflict}
	ErrIdempotencyConflict     = &Error{Code: errcode.IdempotencyConflict}
	ErrCursorBackwards         = &Error{Code: errcode.CursorBackwards}
	ErrCursorAhead             = &Error{Code: errcode.CursorAhead}
	ErrCursorInvalid           = &Error{Code: errcode.CursorInvalid}
	ErrCredentialInEndpoint    = &Error{Code: errcode.CredentialInEndpoint}
	ErrInvalidConfig           = &Error{Code: errcode.InvalidConfig}
	ErrStoreNeedsMigration     = &Error{Code: errcode.StoreNeedsMigration}
	ErrStoreSchemaUnrecognized = &Error{Code: errcode.StoreSchemaUnrecognized}
	ErrProviderUnavailable     = &Error{Code: errcode.ProviderUnavailable}
	ErrAmbiguousCommit         = &Error{Code: errcode.AmbiguousCommit}
	ErrStoreCorrupt            = &Error{Code: errcode.StoreCorrupt}
)

// Errorf makes a typed error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithCause attaches the provider error behind a failure.
func (e *Error) WithCause(cause error) *Error {
	e.cause = cause
	return e
}

// WithEvidence adds one evidence entry.
func (e *Error) WithEvidence(key, value string) *Error {
	if e.Evidence == nil {
		e.Evidence = map[string]string{}
	}
	e.Evidence[key] = value
	return e
}

// WithCurrentVersion records the stream's version in the answer.
func (e *Error) WithCurrentVersion(v int64) *Error {
	e.CurrentVersion = &v
	return e
}

// VersionConflict is the refusal of a stale expected_version.
func VersionConflict(expected, current int64) *Error {
	return Errorf(errcode.VersionConflict,
		"expected version %d but the stream is at version %d; nothing was appended: read the stream and retry from version %d",
		expected, current, current).WithCurrentVersion(current)
}

// IdempotencyConflict is the refusal of a key reused with a different event.
func IdempotencyConflict(current int64) *Error {
	return Errorf(errcode.IdempotencyConflict,
		"the idempotency key was already committed with a different event; nothing was appended: use a new key for a new event").
		WithCurrentVersion(current)
}

// CodeOf returns the code of a store error, or "" for any other error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// AsError returns err as a typed store error so that callers always get a
// code. An untyped error is a driver bug whose effect nobody can vouch for, so
// it is treated as the worst case: ambiguous_commit, failed closed.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Errorf(errcode.AmbiguousCommit, "the store failed unexpectedly; nothing is known about a commit: retry with the same idempotency key").WithCause(err)
}
