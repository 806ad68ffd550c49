package engine

import (
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestCheckRequires(t *testing.T) {
	if names := HelperNames(); len(names) != 1 || names[0] != "parseUrl" {
		t.Fatalf("HelperNames() = %v, want [parseUrl]", names)
	}
	if err := CheckRequires([]string{"parseUrl"}); err != nil {
		t.Fatalf("parseUrl refused: %v", err)
	}
	if err := CheckRequires(nil); err != nil {
		t.Fatalf("no requirements refused: %v", err)
	}
	wantCode(t, CheckRequires([]string{"parseUrl", "parseData"}), errcode.ModuleRequiresUnsupported)
}
