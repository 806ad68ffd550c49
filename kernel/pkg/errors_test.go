package pkg

import (
	"errors"
	"fmt"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestErrorFormat(t *testing.T) {
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{Code: "c", Message: "m", File: "run.yaml", Line: 3, Column: 5}, "run.yaml:3:5: m"},
		{&Error{Code: "c", Message: "m", File: "run.yaml", Line: 3}, "run.yaml:3: m"},
		{&Error{Code: "c", Message: "m", File: "run.yaml"}, "run.yaml: m"},
		{&Error{Code: "c", Message: "m"}, "m"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestErrorMatchesByCode(t *testing.T) {
	err := fmt.Errorf("loading: %w", refuse(errcode.MethodNotFound, "no method"))
	if !errors.Is(err, &Error{Code: errcode.MethodNotFound}) {
		t.Error("errors.Is does not match the same code through a wrap")
	}
	if errors.Is(err, &Error{Code: errcode.MethodAmbiguous}) {
		t.Error("errors.Is matches a different code")
	}
	var e *Error
	if !errors.As(err, &e) || e.Message != "no method" {
		t.Errorf("errors.As = %v", e)
	}
	if CodeOf(err) != errcode.MethodNotFound || CodeOf(errors.New("x")) != "" || CodeOf(nil) != "" {
		t.Error("CodeOf")
	}
}
