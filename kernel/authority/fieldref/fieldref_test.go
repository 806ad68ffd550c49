package fieldref

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/sdk/errcode"
)

// objects are the document's objects, each as a document holding a field no
// parser knows (zz_probe) at that object, and the path prefix its fields
// take in the table.
var objects = []struct{ prefix, doc string }{
	{"", `{"zz_probe":1}`},
	{"standing_approvals[].", `{"standing_approvals":[{"zz_probe":1}]}`},
	{"standing_approvals[].edits.", `{"standing_approvals":[{"edits":{"zz_probe":1}}]}`},
	{"standing_approvals[].commands.", `{"standing_approvals":[{"commands":{"zz_probe":1}}]}`},
	{"standing_approvals[].operations.", `{"standing_approvals":[{"operations":{"zz_probe":1}}]}`},
	{"delegations[].", `{"delegations":[{"zz_probe":1}]}`},
	{"delegations[].terms[].", `{"delegations":[{"connector":"store","terms":[{"zz_probe":1}]}]}`},
}

var knownFields = regexp.MustCompile(`the fields are \[([^\]]*)\]`)

// The table lists exactly the fields the parser accepts. The accepted set
// is the parser's own answer: at each object of the document, a field it
// does not know is refused with the fields it does, which the test reads.
// A field the parser gains and the table lacks fails here, as does a row
// for a field the parser refuses.
func TestEveryFieldIsListed(t *testing.T) {
	accepted := map[string]bool{}
	for _, o := range objects {
		_, err := authority.Parse([]byte(o.doc))
		var ae *authority.Error
		if !errors.As(err, &ae) || ae.Code != errcode.AuthorityUnknownField {
			t.Fatalf("%s: want authority_unknown_field naming the known fields, got %v", o.doc, err)
		}
		m := knownFields.FindStringSubmatch(ae.Message)
		if m == nil {
			t.Fatalf("%s: the refusal names no fields: %s", o.doc, ae.Message)
		}
		for _, name := range strings.Fields(m[1]) {
			accepted[o.prefix+name] = true
		}
	}
	if len(accepted) < 20 {
		t.Fatalf("the parser answered only %d fields: %v", len(accepted), accepted)
	}
	listed := map[string]bool{}
	for _, f := range Fields {
		if listed[f.Path] {
			t.Errorf("%s is listed twice", f.Path)
		}
		listed[f.Path] = true
		if !accepted[f.Path] {
			t.Errorf("the table lists %s, which the parser refuses", f.Path)
		}
		if f.Type == "" || f.Default == "" || f.Meaning == "" || f.Evidence == "" {
			t.Errorf("%s: every row has a type, a default, evidence and a meaning: %+v", f.Path, f)
		}
	}
	for name := range accepted {
		if !listed[name] {
			t.Errorf("the parser accepts %s, which the table lacks: add a row to kernel/authority/fieldref", name)
		}
	}
}

// Each row's evidence exists: the scenario file, or the test function in
// the file named.
func TestEvidenceExists(t *testing.T) {
	repo, _ := filepath.Abs("../../..")
	for _, f := range Fields {
		file, test, isTest := strings.Cut(f.Evidence, " ")
		raw, err := os.ReadFile(filepath.Join(repo, file))
		if err != nil {
			t.Errorf("%s: evidence %s: %v", f.Path, file, err)
			continue
		}
		if isTest && !bytes.Contains(raw, []byte("func "+test+"(")) {
			t.Errorf("%s: %s has no func %s", f.Path, file, test)
		}
		if !isTest && !strings.HasSuffix(file, ".txtar") {
			t.Errorf("%s: evidence is a scenario (.txtar) or \"<file> <TestName>\", not %q", f.Path, f.Evidence)
		}
		if !isTest {
			leaf := f.Path[strings.LastIndexAny(f.Path, ".]")+1:]
			if !regexp.MustCompile(`\b` + leaf + `"?\s*:`).Match(raw) {
				t.Errorf("%s: scenario %s never writes %q", f.Path, file, leaf)
			}
		}
	}
}

// docs/authority.md is what the table renders.
func TestDocsUpToDate(t *testing.T) {
	got, err := os.ReadFile("../../../docs/authority.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, Markdown()) {
		t.Fatal("docs/authority.md is stale: go generate ./kernel/authority/fieldref")
	}
	if !slices.ContainsFunc(Fields, func(f Field) bool { return f.Path == "effects" }) {
		t.Fatal("the table has no effects row")
	}
}

// The example the reference opens with is a document the parser accepts.
func TestExampleParses(t *testing.T) {
	_, rest, _ := strings.Cut(intro, "```json\n")
	example, _, ok := strings.Cut(rest, "```")
	if !ok || example == "" {
		t.Fatal("the reference has no JSON example")
	}
	if _, err := authority.Parse([]byte(example)); err != nil {
		t.Fatalf("the reference's example is refused: %v", err)
	}
}
