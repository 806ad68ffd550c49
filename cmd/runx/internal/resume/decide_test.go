package resume

import (
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli/clitest"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// The command line's decisions become the approvals entries a hand-written
// document carries, beside the entries of a document for other addresses;
// an address both decide is a wrong command line, and a document refused on
// its own is refused with its own code.
func TestDecisionsBuildTheDocumentsEntries(t *testing.T) {
	opts := &Options{Document: "answers.json", Reason: "I read the diff", Decisions: []Decision{
		{Address: "w", Digest: "sha256:w", Approved: true}, {Address: "make", Digest: "sha256:m"},
	}}
	raw, err := opts.withDecisions([]byte(`{"answers":{"draft":{"request_digest":"sha256:d","value":{"summary":"s"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got["answers"]["draft"]["request_digest"] != "sha256:d" {
		t.Fatalf("the document's answer was lost: %s", raw)
	}
	w, m := got["approvals"]["w"], got["approvals"]["make"]
	if w["request_digest"] != "sha256:w" || w["approved"] != true || w["reason"] != "I read the diff" || len(w) != 3 {
		t.Fatalf("approval of w: %v", w)
	}
	if m["request_digest"] != "sha256:m" || m["approved"] != false || m["reason"] != "I read the diff" || len(m) != 3 {
		t.Fatalf("decline of make: %v", m)
	}

	for _, doc := range []string{
		`{"approvals":{"w":{"request_digest":"sha256:w","approved":false,"reason":"no"}}}`,
		`{"answers":{"make":{"request_digest":"sha256:m","value":{}}}}`,
	} {
		if _, err := opts.withDecisions([]byte(doc)); !clitest.IsUsage(err) {
			t.Fatalf("%s beside the same address on the command line: %v, want a usage error", doc, err)
		}
	}
	if _, err := opts.withDecisions([]byte(`{"Approvals":{}}`)); contract.CodeOf(err) != errcode.ResumeDocumentInvalid {
		t.Fatalf("a wrong document: %v, want %s", err, errcode.ResumeDocumentInvalid)
	}
	blank := &Options{Reason: "  ", Decisions: []Decision{{Address: "w", Digest: "sha256:w", Approved: true}}}
	if _, err := blank.withDecisions(nil); contract.CodeOf(err) != errcode.ResumeReasonEmpty {
		t.Fatalf("a blank --reason: %v, want %s", err, errcode.ResumeReasonEmpty)
	}
}

// An ask's answers given one question a flag become the one entry a
// document carries for that ask: its answers by question id, each an
// option; an ask the document answers too is a wrong command line.
func TestAnswersBuildOneEntryAnAsk(t *testing.T) {
	opts := &Options{Document: "answers.json", Answers: []Answer{
		{Address: "pick", Digest: "sha256:p", Question: "channel", Option: "email"},
		{Address: "pick", Digest: "sha256:p", Question: "tone", Option: "plain"},
	}}
	raw, err := opts.withDecisions(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"approvals":{"pick":{"request_digest":"sha256:p","value":{"channel":{"option":"email"},"tone":{"option":"plain"}}}}}`
	if string(raw) != want {
		t.Fatalf("the document built:\n%s\nwant\n%s", raw, want)
	}
	if _, err := opts.withDecisions([]byte(`{"approvals":{"pick":{"request_digest":"sha256:p","value":{}}}}`)); !clitest.IsUsage(err) {
		t.Fatalf("an ask answered by a flag and by the document: %v, want a usage error", err)
	}
}
