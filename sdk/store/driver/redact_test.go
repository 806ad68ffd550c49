package driver

import (
	"reflect"
	"strings"
	"testing"
)

func TestRedactionAtWrite(t *testing.T) {
	req := appendReq(`{"type":"card.created","payload":{"api_token":"hunter2","owner":{"email":"a@b.c","name":"A"},"notes":[{"body":"x"},{"body":"y"}],"a/b":1}}`)
	req.Resource.Secret = []string{"/payload/api_token", "/payload/a~1b", "/payload/missing"}
	req.Resource.Private = []string{"/payload/owner/email", "/payload/notes/*/body", "/payload/api_token"}
	p, err := PrepareAppend(req, mustLimits(t))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(p.Event), "hunter2") || strings.Contains(string(p.Event), "a@b.c") {
		t.Fatalf("a declared value was stored: %s", p.Event)
	}
	want := `{"payload":{"a/b":"[redacted:secret]","api_token":"[redacted:secret]","notes":[{"body":"[redacted:private]"},{"body":"[redacted:private]"}],"owner":{"email":"[redacted:private]","name":"A"}},"type":"card.created"}`
	if string(p.Event) != want {
		t.Fatalf("stored event:\n got %s\nwant %s", p.Event, want)
	}
	gotPaths := []string{}
	for _, r := range p.Redactions {
		gotPaths = append(gotPaths, r.Class+" "+r.Path)
	}
	wantPaths := []string{
		"secret /payload/a~1b",
		"secret /payload/api_token",
		"private /payload/notes/0/body",
		"private /payload/notes/1/body",
		"private /payload/owner/email",
	}
	// Sorted by path; a secret already redacted is not reported again as private.
	slicesSortByPath(wantPaths)
	if !reflect.DeepEqual(gotPaths, wantPaths) {
		t.Fatalf("redactions:\n got %v\nwant %v", gotPaths, wantPaths)
	}
	// The digest is over the redacted form: a different secret is the same event.
	req2 := req
	req2.Event = []byte(strings.Replace(string(req.Event), "hunter2", "other", 1))
	p2, err := PrepareAppend(req2, mustLimits(t))
	if err != nil {
		t.Fatal(err)
	}
	if p2.EventDigest != p.EventDigest {
		t.Fatal("a secret's value changed the digest: the digest would commit to the secret")
	}
	res := p.Result("test", 4, GenesisProjection, CommitTime(fixedTime), false)
	for _, r := range res.Redactions {
		if r.EventRef != "board_events:posting-123:4" {
			t.Fatalf("redaction event_ref %q", r.EventRef)
		}
	}
}

func slicesSortByPath(s []string) {
	path := func(x string) string { return x[strings.IndexByte(x, ' ')+1:] }
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && path(s[j]) < path(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestRedactionAtRead(t *testing.T) {
	r := board()
	stored := []byte(`{"payload":{"token":"t0k3n","kept":1},"type":"x"}`)
	if out, rs, err := redactStored(stored, r, "ref"); err != nil || string(out) != string(stored) || rs != nil {
		t.Fatalf("no rules must leave bytes untouched: %s %v %v", out, rs, err)
	}
	r.Secret = []string{"/payload/token"}
	out, rs, err := redactStored(stored, r, "board_events:k:1")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"payload":{"kept":1,"token":"[redacted:secret]"},"type":"x"}` {
		t.Fatalf("read redaction: %s", out)
	}
	if len(rs) != 1 || rs[0] != (Redaction{EventRef: "board_events:k:1", Path: "/payload/token", Class: ClassSecret}) {
		t.Fatalf("redactions %+v", rs)
	}
	// A value redacted at write time is not reported again.
	_, rs, _ = redactStored(out, r, "board_events:k:1")
	if len(rs) != 0 {
		t.Fatalf("an already-redacted value was reported: %+v", rs)
	}
}
