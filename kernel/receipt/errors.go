package receipt

import "github.com/runxhq/runx/sdk/errcode"

// Stable codes for refusals this package returns as *Error. They are part of
// the CLI's --json contract, so a code is never renamed, only added.

// Error is a refusal with a stable snake_case code and a message that says
// what to do. A plain Go error from this package means an I/O failure or a
// bug; an *Error means the input or the state on disk was refused.
type Error struct {
	Code    errcode.Code
	Message string
	// Err is the underlying cause, when there is one, for errors.Is/As.
	Err error
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches any *Error with the same code, so callers can write
// errors.Is(err, receipt.ErrNotFound) without caring about the message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is; each carries only its code.
var (
	ErrStoreUnrecognized = &Error{Code: errcode.ReceiptStoreUnrecognized}
	ErrConflict          = &Error{Code: errcode.ReceiptConflict}
	ErrNotFound          = &Error{Code: errcode.ReceiptNotFound}
	ErrIDInvalid         = &Error{Code: errcode.ReceiptIDInvalid}
	ErrMalformed         = &Error{Code: errcode.ReceiptMalformed}
	ErrBodyInvalid       = &Error{Code: errcode.ReceiptBodyInvalid}
	ErrIndexMalformed    = &Error{Code: errcode.ReceiptIndexMalformed}
	ErrKeyMalformed      = &Error{Code: errcode.KeyMalformed}
	ErrKeyPermissions    = &Error{Code: errcode.KeyPermissionsUnsafe}
	ErrFileUnsafe        = &Error{Code: errcode.ReceiptFileUnsafe}
)

func refuse(code errcode.Code, message string, cause error) *Error {
	return &Error{Code: code, Message: message, Err: cause}
}
