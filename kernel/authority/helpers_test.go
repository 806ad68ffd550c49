package authority

import (
	"errors"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// wantCode asserts err is an *Error with code, and that its message names
// its rule: every refusal must say what refused it.
func wantCode(tb testing.TB, err error, code errcode.Code) *Error {
	tb.Helper()
	if code == "" {
		if err != nil {
			tb.Fatalf("unexpected error: %v", err)
		}
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		tb.Fatalf("got %v (%T), want *Error with code %s", err, err, code)
	}
	if e.Code != code {
		tb.Fatalf("got code %s (%s), want %s", e.Code, e.Message, code)
	}
	if e.Rule == "" || !strings.Contains(e.Message, e.Rule) {
		tb.Fatalf("message %q does not name its rule %q", e.Message, e.Rule)
	}
	if e.ErrorCode() != code || e.Error() != e.Message {
		tb.Fatalf("ErrorCode/Error disagree with the fields: %q %q", e.ErrorCode(), e.Error())
	}
	return e
}

func mustParse(tb testing.TB, doc string) *Authority {
	tb.Helper()
	a, err := Parse([]byte(doc))
	if err != nil {
		tb.Fatalf("Parse(%s): %v", doc, err)
	}
	return a
}

var (
	allEffects = []Effects{EffectsUnset, EffectsNone, EffectsAsk, EffectsAllow}
	allReach   = []Reach{ReachUnset, ReachWorkspace, ReachInputs}
)
