package a

import (
	"example.com/m/reg"
)

type Error struct {
	Code    reg.Code
	Message string
}

func refuse(code reg.Code, msg string) *Error { return &Error{Code: code, Message: msg} }

func (e *Error) with(n int, code reg.Code) *Error { return e }

func name() reg.Code { return "made_up" }

var planted = []any{
	refuse("made_up", "a new code not registered"),
	&Error{Code: "made_up"},
	reg.Code("made_up"),
	"thing_missing",
	refuse(reg.ThingMissing, "the message may say thing_missing in a sentence"),
}

func assign(e *Error) {
	e.Code = "made_up"
	e.with(1, "made_up")
	_ = func() reg.Code { return "made_up" }
}

// The zero Code is no code, not a spelling.
func none() reg.Code { return "" }
