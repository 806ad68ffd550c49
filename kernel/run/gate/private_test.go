package gate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// described answers the gate's questions from plugin descriptions held in
// memory: the port's contract, over descriptions a plugin would give.
type described map[string]*sdk.Info

func (c described) Operation(ctx context.Context, step *pkg.Step) *sdk.Definition {
	return c.Definition(ctx, step.Operation.Ref)
}

func (c described) Definition(_ context.Context, id string) *sdk.Definition {
	name, _, _ := strings.Cut(id, "/")
	if info := c[name]; info != nil {
		return info.Find(id)
	}
	return nil
}

func (described) Native(string) bool { return false }

func (c described) Info(_ context.Context, name string) (*sdk.Info, error) {
	if info := c[name]; info != nil {
		return info, nil
	}
	return nil, errors.New("no plugin " + name)
}

// caps holds a private connector ("mine", role data.private, reading and
// appending) and a read-only connector ("feed").
var caps = described{
	"mine": {Name: "mine", Capabilities: []sdk.Definition{
		{ID: "mine/events.append", Effect: sdk.EffectWrite, Roles: []string{sdk.RolePrivateData}},
		{ID: "mine/events.read", Effect: sdk.EffectRead, Roles: []string{sdk.RolePrivateData}},
	}},
	"feed": {Name: "feed", Capabilities: []sdk.Definition{{ID: "feed/items.list", Effect: sdk.EffectRead}}},
}

func opStep(ref string, inputs map[string]any) *pkg.Step {
	conn, op, _ := strings.Cut(ref, "/")
	return &pkg.Step{ID: "s", Kind: pkg.KindOperation, Operation: &pkg.OperationStep{Ref: ref, Connector: conn, Operation: op}, Inputs: inputs}
}

func call(t *testing.T, doc string, chain []string, ref string, inputs map[string]any) (*contract.ErrorBody, map[string]any) {
	t.Helper()
	var raw []byte
	if doc != "" {
		a, err := authority.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if raw, err = json.Marshal(a); err != nil {
			t.Fatal(err)
		}
	}
	return CallAuthority(context.Background(), caps, raw, chain, opStep(ref, inputs), inputs)
}

// Every call on a private connector needs a term: with no authority, or
// one that delegates the connector nothing, it refuses and says how to
// give one. A connector that is not private needs none.
func TestPrivateCallNeedsATerm(t *testing.T) {
	said := map[string]any{"resource": "said:words", "aggregate_id": "me"}
	for _, doc := range []string{"", `{"effects":"allow"}`, `{"delegations":[{"connector":"feed","terms":[{"verbs":["read"]}]}]}`} {
		refusal, _ := call(t, doc, []string{"project:keep"}, "mine/events.append", said)
		if refusal == nil || refusal.Code != errcode.DelegationTermRequired {
			t.Fatalf("authority %q: want delegation_term_required, got %+v", doc, refusal)
		}
		if !strings.Contains(refusal.Message, "--run-authority") || !strings.Contains(refusal.Message, "runx authority save") || !strings.Contains(refusal.Message, `"verbs":["write"]`) {
			t.Errorf("the refusal does not say how to give a term: %s", refusal.Message)
		}
	}
	if refusal, _ := call(t, "", nil, "feed/items.list", nil); refusal != nil {
		t.Errorf("a connector that is not private needs no term: %+v", refusal)
	}
	refusal, term := call(t, `{"delegations":[{"connector":"mine","terms":[{"verbs":["read"]},{"verbs":["read","write"]}]}]}`, []string{"project:keep"}, "mine/events.append", said)
	if refusal != nil {
		t.Fatalf("a term granting write covers the append: %+v", refusal)
	}
	if del, _ := term["delegation"].(map[string]any); del["term"] != 1 || del["verb"] != authority.VerbWrite {
		t.Errorf("the receipt's term names the second term's write: %v", term)
	}
}

// A term that widens the run's packages refuses every call on the
// instance, a read its other term would cover included.
func TestWideningTermRefusesEveryCall(t *testing.T) {
	read := map[string]any{"resource": "said:words", "aggregate_id": "me"}
	for _, c := range []struct{ doc, from, ref, why string }{
		{`{"packages":["project:*"],"delegations":[{"connector":"mine","terms":[{"verbs":["read"]},{"verbs":["write"],"packages":["acme/*"]}]}]}`, "project:keep", "mine/events.read", "acme/*"},
		{`{"packages":["acme/keep"],"delegations":[{"connector":"mine","terms":[{"verbs":["read"],"packages":["acme/*"]}]}]}`, "acme/keep", "mine/events.read", "acme/*"},
	} {
		refusal, _ := call(t, c.doc, []string{c.from}, c.ref, read)
		if refusal == nil || refusal.Code != errcode.DelegationWidens || !strings.Contains(refusal.Message, c.why) {
			t.Errorf("%s: want delegation_widens naming %q, got %+v", c.doc, c.why, refusal)
		}
	}
	// Narrowing is fine: a term's packages inside the run's, or a term
	// that states none and keeps the run's.
	for _, doc := range []string{
		`{"packages":["acme/*"],"delegations":[{"connector":"mine","terms":[{"verbs":["read"],"packages":["acme/keep"]}]}]}`,
		`{"packages":["acme/*"],"delegations":[{"connector":"mine","terms":[{"verbs":["read"]}]}]}`,
		`{"delegations":[{"connector":"mine","terms":[{"verbs":["read"],"packages":["acme/*"]}]}]}`,
	} {
		if refusal, _ := call(t, doc, []string{"acme/keep"}, "mine/events.read", read); refusal != nil {
			t.Errorf("%s narrows: %+v", doc, refusal)
		}
	}
}

// A call is admitted under the first term that covers it: its verb, its
// chain by the term's packages and its stream by the term's bounds.
func TestTermCoversVerbPackagesAndStreams(t *testing.T) {
	doc := `{"delegations":[{"connector":"mine","terms":[{"verbs":["read"],"bounds":{"streams":["said:*"]}},{"verbs":["read","write"],"packages":["project:keep"],"bounds":{"streams":["observed:diet"]}}]}]}`
	for _, c := range []struct {
		ref, stream string
		chain       []string
		code        errcode.Code
		term        int
	}{
		{"mine/events.read", "said:words", []string{"project:other"}, "", 0},
		{"mine/events.append", "observed:diet", []string{"project:keep"}, "", 1},
		{"mine/events.append", "observed:diet", []string{"project:other"}, errcode.DelegationNotCovered, 0},
		{"mine/events.append", "said:words", []string{"project:keep"}, errcode.DelegationNotCovered, 0},
		{"mine/events.read", "observed:mood", []string{"project:keep"}, errcode.DelegationNotCovered, 0},
	} {
		refusal, term := call(t, doc, c.chain, c.ref, map[string]any{"resource": c.stream, "aggregate_id": "me"})
		switch {
		case c.code != "" && (refusal == nil || refusal.Code != c.code):
			t.Errorf("%s %s from %v: want %s, got %+v", c.ref, c.stream, c.chain, c.code, refusal)
		case c.code == "" && refusal != nil:
			t.Errorf("%s %s from %v: refused %+v", c.ref, c.stream, c.chain, refusal)
		case c.code == "" && term["delegation"].(map[string]any)["term"] != c.term:
			t.Errorf("%s %s: admitted under %v, want term %d", c.ref, c.stream, term, c.term)
		}
	}
}

// Bounds are admitted only where the connector is private, and only as
// its streams bound; anything else, and a verb the connector cannot grant,
// is refused before the run starts.
func TestAdmitAuthorityBounds(t *testing.T) {
	for _, c := range []struct {
		doc  string
		code errcode.Code
	}{
		{`{"delegations":[{"connector":"mine","terms":[{"verbs":["read"],"bounds":{"streams":["said:*","observed:diet"]}}]}]}`, ""},
		{`{"delegations":[{"connector":"feed","terms":[{"verbs":["read"],"bounds":{"streams":["said:*"]}}]}]}`, errcode.AuthorityUnsupported},
		{`{"delegations":[{"connector":"mine","terms":[{"verbs":["read"],"bounds":{"max_rows":3}}]}]}`, errcode.AuthorityUnsupported},
		{`{"delegations":[{"connector":"mine","terms":[{"verbs":["read"],"bounds":{"streams":["notes"]}}]}]}`, errcode.AuthorityUnsupported},
		{`{"delegations":[{"connector":"mine","terms":[{"verbs":["read"],"bounds":{"streams":[]}}]}]}`, errcode.AuthorityUnsupported},
		{`{"delegations":[{"connector":"nobody","terms":[{"verbs":["read"]}]}]}`, errcode.AuthorityUnsupported},
		// A verb the connector offers no operation of widens its own
		// capability, the first link: its description says so up front.
		{`{"delegations":[{"connector":"feed","terms":[{"verbs":["read","write"]}]}]}`, errcode.DelegationWidens},
		{`{"delegations":[{"connector":"feed","terms":[{"verbs":["read"]}]}]}`, ""},
	} {
		a, err := authority.Parse([]byte(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		err = AdmitAuthority(context.Background(), a, caps.Info)
		if c.code == "" && err != nil || c.code != "" && contract.CodeOf(err) != c.code {
			t.Errorf("%s: want %q, got %v", c.doc, c.code, err)
		}
	}
}

// An append to a said: stream changes nothing; any other append on a
// private connector, an observed: stream's included, is a store write that
// is not the package's own, so effects none refuses it; a read changes
// nothing. Before inputs resolve, only a literal said: stream is known.
func TestPrivateChange(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		ref    string
		inputs map[string]any
		want   authority.ChangeKind
	}{
		{"mine/events.append", map[string]any{"resource": "said:words"}, authority.ChangeNone},
		{"mine/events.append", map[string]any{"resource": "observed:words"}, authority.ChangeStoreWrite},
		{"mine/events.append", map[string]any{"resource": "said:"}, authority.ChangeStoreWrite},
		{"mine/events.append", map[string]any{"resource": "$input.stream"}, authority.ChangeStoreWrite},
		{"mine/events.read", map[string]any{"resource": "observed:words"}, authority.ChangeNone},
	} {
		step := opStep(c.ref, c.inputs)
		if got := CallChange(ctx, caps, step, c.inputs); got.Kind != c.want || got.OwnStore {
			t.Errorf("%s %v: %+v, want %s", c.ref, c.inputs, got, c.want)
		}
		if got := ChangeOf(ctx, caps, step); got.Kind != c.want {
			t.Errorf("ChangeOf %s %v: %+v, want %s", c.ref, c.inputs, got, c.want)
		}
	}
	// A turn's call has no inputs until it is made: the resolved inputs
	// decide.
	step := opStep("mine/events.append", nil)
	if got := CallChange(ctx, caps, step, map[string]any{"resource": "said:words"}); got.Kind != authority.ChangeNone {
		t.Errorf("a turn's said: append: %+v", got)
	}
	dec := authority.Floor(authority.Effective{Effects: authority.EffectsNone}, CallChange(ctx, caps, step, map[string]any{"resource": "observed:words"}), nil)
	if dec.Verdict != authority.VerdictRefuse || dec.Code != errcode.EffectsNoneRefused {
		t.Errorf("an observed: append under effects none: %+v", dec)
	}
}
