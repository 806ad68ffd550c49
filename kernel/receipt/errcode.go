package receipt

// ErrorCode is the stable code, so presentation reads it without knowing this type.
func (e *Error) ErrorCode() string { return e.Code }
