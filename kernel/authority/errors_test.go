package authority

import (
	"fmt"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// TestErrorsCarryTheirCode: presentation reads codes through
// contract.CodeOf, wrapped or not, without knowing this package's type.
func TestErrorsCarryTheirCode(t *testing.T) {
	_, err := Parse([]byte(`{"effects":"maybe"}`))
	if got := contract.CodeOf(err); got != errcode.AuthorityInvalidValue {
		t.Errorf("CodeOf = %q", got)
	}
	wrapped := fmt.Errorf("starting run: %w", CheckPath(ReachWorkspace, "/w", nil, "/etc/passwd"))
	if got := contract.CodeOf(wrapped); got != errcode.ReachOutsideWorkspace {
		t.Errorf("CodeOf(wrapped) = %q", got)
	}
	e := refusal("some_code", "", "what happened")
	if e.Message != "what happened" {
		t.Errorf("a refusal with no rule is just what happened: %q", e.Message)
	}
}
