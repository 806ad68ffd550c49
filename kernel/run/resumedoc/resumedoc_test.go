package resumedoc

import (
	"strconv"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
)

const testDigest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

func approvalDoc(fields string) string {
	return `{"approvals":{"go":{"request_digest":"` + testDigest + `",` + fields + `}}}`
}

// TestParseResumeDocumentRefusals: each way a document could be read as
// something else is refused whole with its code.
func TestParseResumeDocumentRefusals(t *testing.T) {
	cases := []struct {
		name, doc, code, says string
	}{
		{"duplicate top-level key", `{"answers":{},"answers":{}}`, "resume_document_invalid", "key answers appears more than once"},
		{"duplicate key deep in a value", `{"answers":{"d":{"request_digest":"` + testDigest + `","value":{"a":[{"b":1,"b":2}]}}}}`, "resume_document_invalid", "answers.d.value.a[0].b appears more than once"},
		{"duplicate address", `{"approvals":{"go":null,"go":null}}`, "resume_document_invalid", "approvals.go appears more than once"},
		{"lane in another case", `{"Approvals":{}}`, "resume_document_invalid", `write "approvals"`},
		{"entry field in another case", approvalDoc(`"Approved":true,"reason":"ok"`), "resume_document_invalid", `write "approved"`},
		{"close field in another case", `{"close":{"Outcome":"declined"}}`, "resume_document_invalid", `write "outcome"`},
		{"unknown top-level key", `{"surprise":1}`, "resume_document_invalid", `unknown field "surprise"`},
		{"unknown entry key", approvalDoc(`"approved":true,"reason":"ok","by":"me"`), "resume_document_invalid", `unknown field "by"`},
		{"lane not an object", `{"answers":[]}`, "resume_document_invalid", "answers must be a JSON object"},
		{"trailing data", `{} {}`, "resume_document_invalid", "exactly one"},
		{"not JSON", `{"answers":`, "resume_document_invalid", "exactly one"},
		{"approval without approved", approvalDoc(`"reason":"ok"`), "resume_entry_invalid", "takes approved"},
		{"approval without reason", approvalDoc(`"approved":true`), "resume_entry_invalid", "takes approved"},
		{"approved null", approvalDoc(`"approved":null,"reason":"ok"`), "resume_entry_invalid", "true or false"},
		{"approved a string", approvalDoc(`"approved":"yes","reason":"ok"`), "resume_entry_invalid", "true or false"},
		{"approval with a value", approvalDoc(`"approved":true,"reason":"ok","value":{}`), "resume_entry_invalid", "no value"},
		{"approval under answers", `{"answers":{"d":{"request_digest":"` + testDigest + `","approved":true,"reason":"ok"}}}`, "resume_entry_invalid", "under approvals"},
		{"empty reason", approvalDoc(`"approved":false,"reason":""`), "resume_reason_empty", "reason is empty"},
		{"blank reason", approvalDoc(`"approved":true,"reason":" \n\t"`), "resume_reason_empty", "reason is empty"},
		{"reason over its ceiling", approvalDoc(`"approved":true,"reason":"` + strings.Repeat("a", MaxApprovalReasonBytes+1) + `"`), "resume_field_too_large", "4096 byte ceiling on an approval reason"},
		{"value over its ceiling", `{"answers":{"d":{"request_digest":"` + testDigest + `","value":"` + strings.Repeat("a", MaxResumeValueBytes) + `"}}}`, "resume_field_too_large", "4194304 byte ceiling on an answer's value"},
		{"digest over its ceiling", `{"answers":{"d":{"request_digest":"` + strings.Repeat("a", MaxResumeDigestBytes+1) + `","value":1}}}`, "resume_field_too_large", "128 byte ceiling on a request digest"},
		{"address over its ceiling", `{"answers":{"` + strings.Repeat("a", MaxResumeAddressBytes+1) + `":null}}`, "resume_field_too_large", "1024 byte ceiling on an address"},
		{"too many entries", `{"answers":{` + manyEntries(MaxResumeEntries+1) + `}}`, "resume_field_too_large", "more than 1024 entries"},
		{"document over its ceiling", `{"answers":{},"standing_approvals":"` + strings.Repeat("a", MaxResumeDocumentBytes) + `"}`, "resume_document_too_large", "16777216 byte ceiling on a resume document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc))
			if got := contract.CodeOf(err); string(got) != c.code || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %s %v, want %s saying %q", got, err, c.code, c.says)
			}
			if len(err.Error()) > 400 {
				t.Fatalf("the message quotes the document: %d bytes", len(err.Error()))
			}
		})
	}
}

func manyEntries(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"a` + strconv.Itoa(i) + `":null`)
	}
	return b.String()
}

// TestParseResumeDocumentAccepts: the documents hosts write still read as
// they did.
func TestParseResumeDocumentAccepts(t *testing.T) {
	for _, doc := range []string{
		``,
		`{}`,
		approvalDoc(`"approved":true,"reason":"I read it."`),
		approvalDoc(`"approved":false,"reason":"Not now."`),
		`{"approvals":{"pick":{"request_digest":"` + testDigest + `","value":{"channel":{"option":"email"}}}}}`,
		`{"answers":{"draft":{"request_digest":"` + testDigest + `","value":{"Summary":"case is the skill's own","summary":"x"}}}}`,
		`{"close":{"outcome":"declined"}}`,
		`{"standing_approvals":[]}`,
	} {
		if _, err := Parse([]byte(doc)); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
	}
	d, err := Parse([]byte(approvalDoc(`"approved":true,"reason":"ok"`)))
	if err != nil || d.Approvals["go"] == nil || !*d.Approvals["go"].Approved || *d.Approvals["go"].Reason != "ok" || d.Approvals["go"].RequestDigest != testDigest {
		t.Fatalf("got %+v %v", d, err)
	}
}

// FuzzResumeDocument: any bytes parse or are refused with a typed code, a
// parsed document has no entry over its ceilings, and parsing never
// panics.
func FuzzResumeDocument(f *testing.F) {
	for _, seed := range []string{
		`{}`, approvalDoc(`"approved":true,"reason":"ok"`), `{"Approvals":{}}`, `{"answers":{},"answers":{}}`,
		`{"answers":{"d":{"request_digest":"` + testDigest + `","value":{"a":[{"b":1,"b":2}]}}}}`,
		`{"close":{"outcome":"declined"}}`, `{"standing_approvals":[{"tool":"fs.write"}]}`, `{"answers":{"d":null}}`,
		approvalDoc(`"approved":true,"reason":"\u0000"`), `{"approvals":{"go":{"request_digest":1}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := Parse(raw)
		if err != nil {
			if code := contract.CodeOf(err); !strings.HasPrefix(string(code), "resume_") {
				t.Fatalf("untyped refusal %s: %v", code, err)
			}
			return
		}
		for _, lane := range []map[string]*contract.ResumeEntry{doc.Answers, doc.Approvals} {
			for addr, e := range lane {
				if len(addr) > MaxResumeAddressBytes {
					t.Fatalf("address over its ceiling admitted")
				}
				if e == nil {
					continue
				}
				if len(e.Value) > MaxResumeValueBytes || len(e.RequestDigest) > MaxResumeDigestBytes {
					t.Fatalf("field over its ceiling admitted")
				}
				if (e.Approved == nil) != (e.Reason == nil) || e.Reason != nil && (strings.TrimSpace(*e.Reason) == "" || len(*e.Reason) > MaxApprovalReasonBytes) {
					t.Fatalf("an approval without approved or with a bad reason admitted: %+v", e)
				}
			}
		}
	})
}
