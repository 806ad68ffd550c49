package pkg

import "github.com/runxhq/runx/sdk/errcode"

// ErrorCode is the stable code, so presentation reads it without knowing this type.
func (e *Error) ErrorCode() errcode.Code { return e.Code }
