package receipt

// Stable codes for refusals this package returns as *Error. They are part of
// the CLI's --json contract, so a code is never renamed, only added.
const (
	CodeStoreUnrecognized = "receipt_store_unrecognized"
	CodeConflict          = "receipt_conflict"
	CodeNotFound          = "receipt_not_found"
	CodeIDInvalid         = "receipt_id_invalid"
	CodeMalformed         = "receipt_malformed"
	CodeBodyInvalid       = "receipt_body_invalid"
	CodeIndexMalformed    = "receipt_index_malformed"
	CodeKeyMalformed      = "key_malformed"
	CodeKeyPermissions    = "key_permissions_unsafe"
	// CodeFileUnsafe: a receipt's path in the store is a symbolic link or
	// not a regular file; it is never followed or read.
	CodeFileUnsafe = "receipt_file_unsafe"
)

// Error is a refusal with a stable snake_case code and a message that says
// what to do. A plain Go error from this package means an I/O failure or a
// bug; an *Error means the input or the state on disk was refused.
type Error struct {
	Code    string
	Message string
	// Err is the underlying cause, when there is one, for errors.Is/As.
	Err error
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
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
	ErrStoreUnrecognized = &Error{Code: CodeStoreUnrecognized}
	ErrConflict          = &Error{Code: CodeConflict}
	ErrNotFound          = &Error{Code: CodeNotFound}
	ErrIDInvalid         = &Error{Code: CodeIDInvalid}
	ErrMalformed         = &Error{Code: CodeMalformed}
	ErrBodyInvalid       = &Error{Code: CodeBodyInvalid}
	ErrIndexMalformed    = &Error{Code: CodeIndexMalformed}
	ErrKeyMalformed      = &Error{Code: CodeKeyMalformed}
	ErrKeyPermissions    = &Error{Code: CodeKeyPermissions}
	ErrFileUnsafe        = &Error{Code: CodeFileUnsafe}
)

func refuse(code, message string, cause error) *Error {
	return &Error{Code: code, Message: message, Err: cause}
}
