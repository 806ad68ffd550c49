package driver

import (
	"errors"
	"fmt"
)

// Code is the stable snake_case code of a store refusal or failure. Codes are
// part of the wire contract: add new ones, never rename.
type Code string

// Refusals: the request, the caller's view of the stream, or the caller's
// cursor is wrong. Nothing was written. Retrying the same request gives the
// same answer.
const (
	CodeInvalidRequest          Code = "invalid_request"           // a malformed field; the message names it
	CodeSchemaRequired          Code = "schema_required"           // no resource declaration: schema-free access
	CodeBroadRead               Code = "broad_read"                // a read without its explicit key
	CodeIdempotencyKeyRequired  Code = "idempotency_key_required"  // a write without an idempotency key
	CodeInvalidEvent            Code = "invalid_event"             // not a JSON object, or an unusable type
	CodeEventTooLarge           Code = "event_too_large"           // over Limits.MaxEventBytes
	CodePageLimitExceeded       Code = "page_limit_exceeded"       // a limit over Limits.MaxPageEvents
	CodeResponseTooLarge        Code = "response_too_large"        // one stored event alone exceeds the response cap
	CodeVersionConflict         Code = "version_conflict"          // expected_version is stale; CurrentVersion names the head
	CodeIdempotencyConflict     Code = "idempotency_conflict"      // the key was committed with a different event
	CodeCursorBackwards         Code = "cursor_backwards"          // a continuation moved its cursor backwards
	CodeCursorAhead             Code = "cursor_ahead"              // after_version beyond the stream's version
	CodeCursorInvalid           Code = "cursor_invalid"            // a stream-head cursor this listing did not issue
	CodeCredentialInEndpoint    Code = "credential_in_endpoint"    // a driver endpoint that embeds a secret
	CodeInvalidConfig           Code = "invalid_config"            // a driver configuration that cannot work
	CodeStoreNeedsMigration     Code = "store_needs_migration"     // a recognized legacy schema; run `runx data migrate`
	CodeStoreSchemaUnrecognized Code = "store_schema_unrecognized" // neither current nor a recognized legacy schema
)

// Failures: the provider failed. Each says what is known about the commit.
const (
	// CodeProviderUnavailable: the provider could not do the operation and
	// nothing was committed — provably: the write was never sent, or the
	// provider reported it rolled back, or a fenced readback found no commit.
	// Retry later with the same idempotency key.
	CodeProviderUnavailable Code = "provider_unavailable"
	// CodeAmbiguousCommit: the write was sent and its outcome could not be
	// proven either way. The driver fails closed: the append is not reported
	// committed. A retry with the same idempotency key is safe: it returns the
	// committed result if the write landed, or commits it once.
	CodeAmbiguousCommit Code = "ambiguous_commit"
	// CodeStoreCorrupt: the store contradicts its own invariants (a gap in
	// versions, a head that disagrees with its stream). Nothing is guessed.
	CodeStoreCorrupt Code = "store_corrupt"
)

// Refusal reports whether the code is a refusal of the request rather than a
// failure of the provider.
func (c Code) Refusal() bool {
	switch c {
	case CodeProviderUnavailable, CodeAmbiguousCommit, CodeStoreCorrupt:
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
	ErrInvalidRequest          = &Error{Code: CodeInvalidRequest}
	ErrSchemaRequired          = &Error{Code: CodeSchemaRequired}
	ErrBroadRead               = &Error{Code: CodeBroadRead}
	ErrIdempotencyKeyRequired  = &Error{Code: CodeIdempotencyKeyRequired}
	ErrInvalidEvent            = &Error{Code: CodeInvalidEvent}
	ErrEventTooLarge           = &Error{Code: CodeEventTooLarge}
	ErrPageLimitExceeded       = &Error{Code: CodePageLimitExceeded}
	ErrResponseTooLarge        = &Error{Code: CodeResponseTooLarge}
	ErrVersionConflict         = &Error{Code: CodeVersionConflict}
	ErrIdempotencyConflict     = &Error{Code: CodeIdempotencyConflict}
	ErrCursorBackwards         = &Error{Code: CodeCursorBackwards}
	ErrCursorAhead             = &Error{Code: CodeCursorAhead}
	ErrCursorInvalid           = &Error{Code: CodeCursorInvalid}
	ErrCredentialInEndpoint    = &Error{Code: CodeCredentialInEndpoint}
	ErrInvalidConfig           = &Error{Code: CodeInvalidConfig}
	ErrStoreNeedsMigration     = &Error{Code: CodeStoreNeedsMigration}
	ErrStoreSchemaUnrecognized = &Error{Code: CodeStoreSchemaUnrecognized}
	ErrProviderUnavailable     = &Error{Code: CodeProviderUnavailable}
	ErrAmbiguousCommit         = &Error{Code: CodeAmbiguousCommit}
	ErrStoreCorrupt            = &Error{Code: CodeStoreCorrupt}
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
	return Errorf(CodeVersionConflict,
		"expected version %d but the stream is at version %d; nothing was appended: read the stream and retry from version %d",
		expected, current, current).WithCurrentVersion(current)
}

// IdempotencyConflict is the refusal of a key reused with a different event.
func IdempotencyConflict(current int64) *Error {
	return Errorf(CodeIdempotencyConflict,
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
	return Errorf(CodeAmbiguousCommit, "the store failed unexpectedly; nothing is known about a commit: retry with the same idempotency key").WithCause(err)
}
