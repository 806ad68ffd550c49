package cli

import (
	"bytes"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// TestErrorDocumentIsTheDocument holds the typed error document to the
// bytes runx has always printed for a failed command with --json, for a
// refusal and for a usage error, with the exit code each maps to.
func TestErrorDocumentIsTheDocument(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
		exit ExitCode
	}{
		{contract.Errorf(errcode.InputMissing, "needs input <a>"),
			"{\n  \"error\": {\n    \"code\": \"input_missing\",\n    \"message\": \"needs input <a>\"\n  },\n  \"schema\": \"runx.error.v1\",\n  \"status\": \"error\"\n}\n", ExitFailed},
		{Usagef("accepts 1 arg"),
			"{\n  \"error\": {\n    \"code\": \"usage_error\",\n    \"message\": \"accepts 1 arg\"\n  },\n  \"schema\": \"runx.error.v1\",\n  \"status\": \"error\"\n}\n", ExitUsage},
	} {
		var out, errOut bytes.Buffer
		if code := ReportError(&IO{Out: &out, Err: &errOut}, true, c.err); code != c.exit {
			t.Errorf("%v: exit %d, want %d", c.err, code, c.exit)
		}
		if out.String() != c.want || errOut.Len() != 0 {
			t.Errorf("%v: printed\n%s\nwant\n%s(stderr %q)", c.err, out.String(), c.want, errOut.String())
		}
	}
	for _, s := range []contract.RunStatus{contract.StatusSealed, contract.StatusNeedsAgent, contract.StatusNeedsApproval, contract.StatusStopped} {
		if string(s) == string(StatusError) {
			t.Fatalf("an error document's status %q is a run's status too", s)
		}
	}
}
