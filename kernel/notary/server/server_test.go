package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/kernel/notary/client"
	"github.com/runxhq/runx/sdk/errcode"
)

// Notarize, then verify the record offline and its checkpoint against the
// home's view; a second notarize of the same receipt answers the first
// entry; /r serves it with a proof in the log as it grew.
func TestNotarizeThenVerify(t *testing.T) {
	for name, startNotary := range map[string]func(t *testing.T) *testNotary{
		"sqlite":   func(t *testing.T) *testNotary { return start(t, Config{}) },
		"postgres": func(t *testing.T) *testNotary { return startPostgres(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			n := startNotary(t)
			c := n.client(t)
			pub := n.srv.PublicKey()
			state := notary.OpenState(t.TempDir())

			first := sealedReceipt(t, "first")
			rec, raw, err := c.Notarize(ctx, first.Canonical, first.ContentHash)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Statement.LogIndex != 0 || rec.Link != n.url+"/r/"+first.ContentHash || rec.Statement.ReceiptID != first.Receipt.ID {
				t.Fatalf("record %+v", rec)
			}
			v, err := notary.VerifyRecord(raw, pub)
			if err != nil {
				t.Fatal(err)
			}
			if c, err := state.Check(ctx, pub, v.Checkpoint, c.ProveTree); err != nil || c != notary.FirstSeen {
				t.Fatalf("first check: %s %v", c, err)
			}

			for _, label := range []string{"second", "third"} {
				s := sealedReceipt(t, label)
				if _, _, err := c.Notarize(ctx, s.Canonical, s.ContentHash); err != nil {
					t.Fatal(err)
				}
			}
			again, raw, err := c.Notarize(ctx, first.Canonical, first.ContentHash)
			if err != nil || again.Statement != rec.Statement {
				t.Fatalf("again: %+v %v", again, err)
			}
			v, err = notary.VerifyRecord(raw, pub)
			if err != nil || v.Checkpoint.Size != 3 {
				t.Fatalf("again verifies in the grown tree: %+v %v", v, err)
			}
			if c, err := state.Check(ctx, pub, v.Checkpoint, c.ProveTree); err != nil || c != notary.Extends {
				t.Fatalf("grown: %s %v", c, err)
			}
			_, raw, err = c.Record(ctx, first.ContentHash)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := notary.VerifyRecord(raw, pub); err != nil {
				t.Fatalf("/r record: %v", err)
			}
			var keys Keys
			if err := json.NewDecoder(get(t, n.url+"/v1/keys").Body).Decode(&keys); err != nil || keys.Origin != notary.Origin(pub) {
				t.Fatalf("keys: %+v %v", keys, err)
			}
			if got, err := notary.ParsePublicKey([]byte(keys.PublicKey)); err != nil || !got.Equal(pub) {
				t.Fatalf("served key: %v", err)
			}
			cp, _ := io.ReadAll(get(t, n.url+"/v1/log/checkpoint").Body)
			if opened, err := notary.OpenCheckpoint(string(cp), pub); err != nil || opened.Size != 3 {
				t.Fatalf("checkpoint: %+v %v", opened, err)
			}
		})
	}
}

// What the notary refuses, each with its code: an unsigned or altered
// receipt, no token or another's, an oversized body, an unknown record,
// a bad consistency request, and a token over its rate.
func TestNotaryRefusals(t *testing.T) {
	ctx := context.Background()
	n := start(t, Config{PerMinute: 1, Burst: 5})
	c := n.client(t)
	good := sealedReceipt(t, "good")

	var doc map[string]any
	_ = json.Unmarshal(good.Canonical, &doc)
	delete(doc, "signature")
	unsigned, _ := json.Marshal(doc)
	altered := bytes.Replace(good.Canonical, []byte(`"skill_name":"hello"`), []byte(`"skill_name":"other"`), 1)

	base, _ := client.CheckURL(n.url, true)
	for name, tc := range map[string]struct {
		c    *client.Client
		body []byte
		code errcode.Code
	}{
		"unsigned receipt": {c, unsigned, errcode.SignatureInvalid},
		"altered receipt":  {c, altered, errcode.ReceiptDigestMismatch},
		"not a receipt":    {c, []byte(`{"hello":1}`), errcode.ReceiptMalformed},
		"unknown token":    {client.New(base, "runxnot_"+strings.Repeat("0", 80)), good.Canonical, errcode.NotaryTokenInvalid},
		"not a token":      {client.New(base, "secret"), good.Canonical, errcode.NotaryTokenInvalid},
		"no token":         {client.New(base, ""), good.Canonical, errcode.NotaryTokenMissing},
	} {
		_, _, err := tc.c.Notarize(ctx, tc.body, good.ContentHash)
		if contract.CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error shows the token: %v", name, err)
		}
	}
	if size, _ := n.st.Size(ctx); size != 0 {
		t.Fatalf("a refused notarize logged %d entries", size)
	}

	for path, want := range map[string]struct {
		status int
		code   errcode.Code
	}{
		"/r/" + good.ContentHash:            {http.StatusNotFound, errcode.NotaryNotFound},
		"/r/not-a-hash":                     {http.StatusBadRequest, errcode.NotaryRequestInvalid},
		"/v1/log/checkpoint":                {http.StatusNotFound, errcode.NotaryNotFound},
		"/v1/log/consistency?old=2&new=1":   {http.StatusBadRequest, errcode.NotaryRequestInvalid},
		"/v1/log/consistency?old=1&new=900": {http.StatusNotFound, errcode.NotaryNotFound},
		"/v1/nothing":                       {http.StatusNotFound, errcode.NotaryNotFound},
	} {
		resp := get(t, n.url+path)
		var body errorBody
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != want.status || body.Error.Code != want.code {
			t.Errorf("GET %s: %d %s, want %d %s", path, resp.StatusCode, body.Error.Code, want.status, want.code)
		}
	}

	big := bytes.Repeat([]byte(" "), maxNotarizeBody+1)
	if _, _, err := c.Notarize(ctx, big, good.ContentHash); contract.CodeOf(err) != errcode.NotaryRequestTooLarge {
		t.Fatalf("oversized: %v", err)
	}
	// Every notarize with the token counts, refused or not: four so far,
	// so the burst of 5 is spent by the next and then the token waits.
	var limited error
	for i := 0; i < 5 && limited == nil; i++ {
		if _, _, err := c.Notarize(ctx, good.Canonical, good.ContentHash); contract.CodeOf(err) == errcode.NotaryRateLimited {
			limited = err
		}
	}
	if limited == nil {
		t.Fatal("a token past its burst was never rate limited")
	}
}

// Public reads are limited per client address.
func TestReadsAreRateLimited(t *testing.T) {
	n := start(t, Config{ReadsPerMinute: 1, ReadBurst: 2})
	var codes []int
	for range 3 {
		codes = append(codes, get(t, n.url+"/v1/keys").StatusCode)
	}
	resp := get(t, n.url+"/v1/log/checkpoint")
	var body errorBody
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if codes[0] != http.StatusOK || codes[1] != http.StatusOK || codes[2] != http.StatusTooManyRequests ||
		resp.StatusCode != http.StatusTooManyRequests || body.Error.Code != errcode.NotaryRateLimited || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("reads past the burst: %v, then %d %s", codes, resp.StatusCode, body.Error.Code)
	}
}

// A notary that forks its log (the same key over another history) is
// caught by a home that saw the first: at the same size and at a larger.
func TestForkedLogIsReported(t *testing.T) {
	ctx := context.Background()
	dirA, dirB := t.TempDir(), t.TempDir()
	a := startOn(t, openSQLite(t, dirA), Config{})
	copyKey(t, dirA, dirB)
	b := startOn(t, openSQLite(t, dirB), Config{})
	pub := a.srv.PublicKey()
	if !b.srv.PublicKey().Equal(pub) {
		t.Fatal("the fork does not share the key")
	}
	state := notary.OpenState(t.TempDir())
	notarize := func(n *testNotary, label string) *notary.Verified {
		s := sealedReceipt(t, label)
		_, raw, err := n.client(t).Notarize(ctx, s.Canonical, s.ContentHash)
		if err != nil {
			t.Fatal(err)
		}
		v, err := notary.VerifyRecord(raw, pub)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	notarize(a, "r1")
	va := notarize(a, "r2")
	if _, err := state.Check(ctx, pub, va.Checkpoint, a.client(t).ProveTree); err != nil {
		t.Fatal(err)
	}
	notarize(b, "r1")
	vb := notarize(b, "other")
	if _, err := state.Check(ctx, pub, vb.Checkpoint, b.client(t).ProveTree); contract.CodeOf(err) != errcode.NotaryLogForked {
		t.Fatalf("same size, forked: %v", err)
	}
	vb = notarize(b, "r3")
	if _, err := state.Check(ctx, pub, vb.Checkpoint, b.client(t).ProveTree); contract.CodeOf(err) != errcode.NotaryLogForked {
		t.Fatalf("larger, forked: %v", err)
	}
}
