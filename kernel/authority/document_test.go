package authority

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

const fullDocument = `{
  "effects": "ask",
  "reach": "workspace",
  "max_concurrency": 4,
  "max_fanout": 0,
  "max_child_depth": 2,
  "max_spend_micro_usd": 2500000,
  "packages": ["acme/*", "project:*", "runx/data-store"],
  "standing_approvals": [
    {"edits": {"paths": ["src", "docs/guide.md"]}},
    {"commands": {"argv_prefix": ["go", "test"]}},
    {"operations": {"names": ["forge/issue.comment", "fixture/forge/*"]}},
    {"local": true}
  ],
  "delegations": [
    {"connector": "private", "terms": [
      {"verbs": ["read"], "bounds": {"streams": ["said:*"], "b": 1}},
      {"verbs": ["read", "write"]}
    ]},
    {"connector": "forge", "principal_ref": "actor:bot", "mandate_ref": "mandate:42", "terms": [{"verbs": ["write"], "bounds": {}}]}
  ]
}`

func TestParseFullDocument(t *testing.T) {
	a := mustParse(t, fullDocument)
	want := &Authority{
		Effects: EffectsAsk,
		Reach:   ReachWorkspace,
		Limits: Limits{
			MaxConcurrency:   LimitOf(4),
			MaxFanout:        LimitOf(0),
			MaxChildDepth:    LimitOf(2),
			MaxSpendMicroUSD: LimitOf(2500000),
		},
		Packages: PackagesOf("acme/*", "project:*", "runx/data-store"),
		StandingApprovals: []StandingApproval{
			{Edits: &EditsApproval{Paths: []string{"src", "docs/guide.md"}}},
			{Commands: &CommandsApproval{ArgvPrefix: []string{"go", "test"}}},
			{Operations: &OperationsApproval{Names: []string{"forge/issue.comment", "fixture/forge/*"}}},
			{Local: true},
		},
		Delegations: []Delegation{
			{Connector: "private", Terms: []Term{
				{Verbs: []string{"read"}, Bounds: json.RawMessage(`{"b":1,"streams":["said:*"]}`)},
				{Verbs: []string{"read", "write"}},
			}},
			{Connector: "forge", PrincipalRef: "actor:bot", MandateRef: "mandate:42", Terms: []Term{{Verbs: []string{"write"}, Bounds: json.RawMessage(`{}`)}}},
		},
	}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("parsed\n%#v\nwant\n%#v", a, want)
	}
	if got := a.Layer(); got.Kind != LayerHost || got.Effects != EffectsAsk || got.Reach != ReachWorkspace || got.Limits != want.Limits {
		t.Errorf("Layer() = %+v", got)
	}
	if len(a.Standing()) != 4 || (*Authority)(nil).Standing() != nil {
		t.Error("Standing() must return the entries, and nil for no authority")
	}
}

// TestEmptyAuthorityStaysEmpty: {} is a stated authority that states
// nothing, distinct from no authority at all.
func TestEmptyAuthorityStaysEmpty(t *testing.T) {
	a := mustParse(t, `{}`)
	if a == nil || !reflect.DeepEqual(*a, Authority{}) {
		t.Fatalf("{} parsed as %#v", a)
	}
	if eff := Narrow(a.Layer()); !eff.HostStated || eff.Effects != EffectsAllow || eff.Reach != ReachInputs {
		t.Errorf("a stated empty authority: %+v", eff)
	}
	if eff := Narrow((*Authority)(nil).Layer()); eff.HostStated {
		t.Errorf("no authority must record that no host stated one: %+v", eff)
	}
	d, err := a.Digest()
	if err != nil || d != "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a" {
		t.Errorf("digest of {} = %s, %v", d, err)
	}
	none, err := (*Authority)(nil).Digest()
	if err != nil || none != "" {
		t.Errorf("no authority has no digest, got %q, %v", none, err)
	}
	b, err := json.Marshal(a)
	if err != nil || string(b) != `{}` {
		t.Errorf("{} marshals as %s, %v", b, err)
	}
}

func TestDigest(t *testing.T) {
	digest := func(doc string) string {
		t.Helper()
		d, err := mustParse(t, doc).Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	same := [][2]string{
		{`{"effects":"ask","reach":"workspace"}`, `{ "reach" : "workspace", "effects": "ask" }`},
		{`{"delegations":[{"connector":"c","terms":[{"verbs":["read"],"bounds":{"a":1,"b":[1,2]}}]}]}`,
			`{"delegations":[{"terms":[{"bounds":{"b":[1,2],"a":1},"verbs":["read"]}],"connector":"c"}]}`},
		// An empty standing_approvals list approves nothing, as no list does.
		{`{"standing_approvals":[]}`, `{}`},
		{`{"delegations":[]}`, `{}`},
		// The schema names the format, not what the authority allows.
		{`{"schema":"runx.authority.v1","effects":"ask"}`, `{"effects":"ask"}`},
	}
	for _, p := range same {
		if digest(p[0]) != digest(p[1]) {
			t.Errorf("%s and %s mean the same and must share a digest", p[0], p[1])
		}
	}
	different := [][2]string{
		// A stated empty packages list covers nothing; an absent one, everything.
		{`{"packages":[]}`, `{}`},
		{`{"packages":["a/b","c/d"]}`, `{"packages":["c/d","a/b"]}`},
		{`{"max_fanout":0}`, `{}`},
		{`{"effects":"ask"}`, `{"effects":"allow"}`},
		{`{"standing_approvals":[{"local":true},{"edits":{"paths":[""]}}]}`, `{"standing_approvals":[{"edits":{"paths":[""]}},{"local":true}]}`},
	}
	for _, p := range different {
		if digest(p[0]) == digest(p[1]) {
			t.Errorf("%s and %s must not share a digest", p[0], p[1])
		}
	}
}

// TestRoundTrip: what an authority marshals to parses back to itself, so a
// preset written by runx authority save reads back unchanged.
func TestRoundTrip(t *testing.T) {
	for _, doc := range []string{fullDocument, `{}`, `{"packages":[]}`, `{"max_fanout":0,"max_child_depth":0,"max_spend_micro_usd":0}`} {
		a := mustParse(t, doc)
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("re-parse %s: %v", b, err)
		}
		if !reflect.DeepEqual(a, back) {
			t.Errorf("round trip changed the authority:\n%#v\n%#v", a, back)
		}
		var viaJSON Authority
		if err := json.Unmarshal(b, &viaJSON); err != nil || !reflect.DeepEqual(a, &viaJSON) {
			t.Errorf("json.Unmarshal differs from Parse: %v", err)
		}
	}
}

func TestUnmarshalJSONIsStrict(t *testing.T) {
	var holder struct {
		Authority *Authority `json:"authority"`
	}
	err := json.Unmarshal([]byte(`{"authority":{"effects":"ask","extra":1}}`), &holder)
	wantCode(t, err, errcode.AuthorityUnknownField)
	if err := json.Unmarshal([]byte(`{"authority":{"effects":"none"}}`), &holder); err != nil || holder.Authority.Effects != EffectsNone {
		t.Errorf("embedded authority: %v %+v", err, holder.Authority)
	}
}

func TestParseRefusals(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		code  errcode.Code
		field string
	}{
		// The document as a whole.
		{"empty input", ``, errcode.AuthorityInvalidJSON, "document"},
		{"malformed", `{"effects":`, errcode.AuthorityInvalidJSON, "document"},
		{"trailing data", `{} {}`, errcode.AuthorityInvalidJSON, "document"},
		{"trailing garbage", `{}x`, errcode.AuthorityInvalidJSON, "document"},
		{"stray close", `{}}`, errcode.AuthorityInvalidJSON, "document"},
		{"invalid utf-8", "{\"effects\":\"\xff\"}", errcode.AuthorityInvalidJSON, "document"},
		{"lone surrogate", `{"delegations":[{"connector":"c","terms":[{"verbs":["read"],"bounds":{"a":"\ud800"}}]}]}`, errcode.AuthorityInvalidJSON, "document"},
		{"duplicate key", `{"effects":"ask","effects":"allow"}`, errcode.AuthorityInvalidJSON, "effects"},
		{"nested duplicate key", `{"standing_approvals":[{"edits":{"paths":["a"],"paths":["b"]}}]}`, errcode.AuthorityInvalidJSON, "standing_approvals[0].edits.paths"},
		{"duplicate key deep in bounds", `{"delegations":[{"connector":"c","terms":[{"verbs":["read"],"bounds":{"x":[{"k":1,"k":2}]}}]}]}`, errcode.AuthorityInvalidJSON, "delegations[0].terms[0].bounds.x[0].k"},
		{"null document", `null`, errcode.AuthorityInvalidType, "document"},
		{"array document", `[]`, errcode.AuthorityInvalidType, "document"},
		{"string document", `"allow"`, errcode.AuthorityInvalidType, "document"},
		{"too large", `{"packages":["` + strings.Repeat("a", maxDocumentBytes) + `/b"]}`, errcode.AuthorityTooLarge, "document"},

		// Unknown fields, at every level.
		{"unknown top-level field", `{"effect":"ask"}`, errcode.AuthorityUnknownField, "effect"},
		{"another schema", `{"schema":"runx.authority.v2"}`, errcode.AuthorityInvalidValue, "schema"},
		{"schema not a string", `{"schema":1}`, errcode.AuthorityInvalidType, "schema"},
		{"unknown standing form", `{"standing_approvals":[{"files":{"paths":["a"]}}]}`, errcode.AuthorityUnknownField, "standing_approvals[0].files"},
		{"unknown edits field", `{"standing_approvals":[{"edits":{"paths":["a"],"recursive":true}}]}`, errcode.AuthorityUnknownField, "standing_approvals[0].edits.recursive"},
		{"unknown delegation field", `{"delegations":[{"connector":"c","terms":[{"verbs":["read"]}],"scope":"x"}]}`, errcode.AuthorityUnknownField, "delegations[0].scope"},
		{"unknown term field", `{"delegations":[{"connector":"c","terms":[{"verbs":["read"],"until":"x"}]}]}`, errcode.AuthorityUnknownField, "delegations[0].terms[0].until"},
		{"unknown fields named in sorted order", `{"zz":1,"aa":2}`, errcode.AuthorityUnknownField, "aa"},

		// Effects and reach.
		{"effects wrong value", `{"effects":"deny"}`, errcode.AuthorityInvalidValue, "effects"},
		{"effects empty string", `{"effects":""}`, errcode.AuthorityInvalidValue, "effects"},
		{"effects wrong type", `{"effects":1}`, errcode.AuthorityInvalidType, "effects"},
		{"effects null", `{"effects":null}`, errcode.AuthorityInvalidType, "effects"},
		{"reach wrong value", `{"reach":"anywhere"}`, errcode.AuthorityInvalidValue, "reach"},
		{"reach wrong type", `{"reach":["workspace"]}`, errcode.AuthorityInvalidType, "reach"},

		// Limits.
		{"max_concurrency zero", `{"max_concurrency":0}`, errcode.AuthorityInvalidValue, "max_concurrency"},
		{"max_concurrency negative", `{"max_concurrency":-1}`, errcode.AuthorityInvalidValue, "max_concurrency"},
		{"max_concurrency fraction", `{"max_concurrency":1.5}`, errcode.AuthorityInvalidType, "max_concurrency"},
		{"max_concurrency integral fraction", `{"max_concurrency":2.0}`, errcode.AuthorityInvalidType, "max_concurrency"},
		{"max_concurrency exponent", `{"max_concurrency":1e2}`, errcode.AuthorityInvalidType, "max_concurrency"},
		{"max_concurrency string", `{"max_concurrency":"4"}`, errcode.AuthorityInvalidType, "max_concurrency"},
		{"max_fanout negative", `{"max_fanout":-1}`, errcode.AuthorityInvalidValue, "max_fanout"},
		{"max_child_depth bool", `{"max_child_depth":true}`, errcode.AuthorityInvalidType, "max_child_depth"},
		{"max_spend too large", `{"max_spend_micro_usd":9007199254740992}`, errcode.AuthorityInvalidValue, "max_spend_micro_usd"},
		{"max_spend beyond int64", `{"max_spend_micro_usd":99999999999999999999}`, errcode.AuthorityInvalidValue, "max_spend_micro_usd"},
		{"max_spend null", `{"max_spend_micro_usd":null}`, errcode.AuthorityInvalidType, "max_spend_micro_usd"},

		// Packages.
		{"packages not a list", `{"packages":"acme/*"}`, errcode.AuthorityInvalidType, "packages"},
		{"packages item not a string", `{"packages":[1]}`, errcode.AuthorityInvalidType, "packages[0]"},
		{"package one segment", `{"packages":["acme"]}`, errcode.AuthorityInvalidValue, "packages[0]"},
		{"package lone star", `{"packages":["*"]}`, errcode.AuthorityInvalidValue, "packages[0]"},
		{"package partial wildcard", `{"packages":["ac*/tool"]}`, errcode.AuthorityInvalidValue, "packages[0]"},
		{"package three segments", `{"packages":["a/b/c"]}`, errcode.AuthorityInvalidValue, "packages[0]"},
		{"package empty project", `{"packages":["project:"]}`, errcode.AuthorityInvalidValue, "packages[0]"},
		{"package dot segment", `{"packages":["../x"]}`, errcode.AuthorityInvalidValue, "packages[0]"},
		{"package version", `{"packages":["acme/tool@1.0"]}`, errcode.AuthorityInvalidValue, "packages[0]"},
		{"package duplicate", `{"packages":["acme/*","acme/*"]}`, errcode.AuthorityDuplicateEntry, "packages[1]"},

		// Standing approvals.
		{"standing not a list", `{"standing_approvals":{"local":true}}`, errcode.AuthorityInvalidType, "standing_approvals"},
		{"standing entry not an object", `{"standing_approvals":["local"]}`, errcode.AuthorityInvalidType, "standing_approvals[0]"},
		{"standing entry empty", `{"standing_approvals":[{}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0]"},
		{"standing entry two forms", `{"standing_approvals":[{"local":true,"edits":{"paths":[""]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0]"},
		{"local false", `{"standing_approvals":[{"local":false}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].local"},
		{"local not a bool", `{"standing_approvals":[{"local":"yes"}]}`, errcode.AuthorityInvalidType, "standing_approvals[0].local"},
		{"edits not an object", `{"standing_approvals":[{"edits":["src"]}]}`, errcode.AuthorityInvalidType, "standing_approvals[0].edits"},
		{"edits missing paths", `{"standing_approvals":[{"edits":{}}]}`, errcode.AuthorityMissingField, "standing_approvals[0].edits.paths"},
		{"edits empty paths", `{"standing_approvals":[{"edits":{"paths":[]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].edits.paths"},
		{"edits absolute path", `{"standing_approvals":[{"edits":{"paths":["/etc"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].edits.paths[0]"},
		{"edits parent path", `{"standing_approvals":[{"edits":{"paths":["../x"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].edits.paths[0]"},
		{"edits trailing slash", `{"standing_approvals":[{"edits":{"paths":["src/"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].edits.paths[0]"},
		{"edits dot prefix", `{"standing_approvals":[{"edits":{"paths":["./src"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].edits.paths[0]"},
		{"edits dot", `{"standing_approvals":[{"edits":{"paths":["."]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].edits.paths[0]"},
		{"edits backslash", `{"standing_approvals":[{"edits":{"paths":["src\\a"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].edits.paths[0]"},
		{"edits drive", `{"standing_approvals":[{"edits":{"paths":["C:/x"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].edits.paths[0]"},
		{"edits duplicate", `{"standing_approvals":[{"edits":{"paths":["a","a"]}}]}`, errcode.AuthorityDuplicateEntry, "standing_approvals[0].edits.paths[1]"},
		{"commands missing prefix", `{"standing_approvals":[{"commands":{}}]}`, errcode.AuthorityMissingField, "standing_approvals[0].commands.argv_prefix"},
		{"commands empty prefix", `{"standing_approvals":[{"commands":{"argv_prefix":[]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].commands.argv_prefix"},
		{"commands empty program", `{"standing_approvals":[{"commands":{"argv_prefix":[""]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].commands.argv_prefix[0]"},
		{"commands NUL", `{"standing_approvals":[{"commands":{"argv_prefix":["go","a\u0000b"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].commands.argv_prefix[1]"},
		{"commands a shell line", `{"standing_approvals":[{"commands":{"argv_prefix":"go test"}}]}`, errcode.AuthorityInvalidType, "standing_approvals[0].commands.argv_prefix"},
		{"operations empty names", `{"standing_approvals":[{"operations":{"names":[]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].operations.names"},
		{"operation without connector", `{"standing_approvals":[{"operations":{"names":["issue.create"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].operations.names[0]"},
		{"operation bare star", `{"standing_approvals":[{"operations":{"names":["*"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].operations.names[0]"},
		{"operation star connector", `{"standing_approvals":[{"operations":{"names":["*/write"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].operations.names[0]"},
		{"operation partial star", `{"standing_approvals":[{"operations":{"names":["forge/issue.*"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].operations.names[0]"},
		{"operation trailing slash", `{"standing_approvals":[{"operations":{"names":["forge/"]}}]}`, errcode.AuthorityInvalidValue, "standing_approvals[0].operations.names[0]"},
		{"operation duplicate", `{"standing_approvals":[{"operations":{"names":["f/x","f/x"]}}]}`, errcode.AuthorityDuplicateEntry, "standing_approvals[0].operations.names[1]"},

		// Delegations.
		{"delegations not a list", `{"delegations":{}}`, errcode.AuthorityInvalidType, "delegations"},
		{"delegation missing connector", `{"delegations":[{"terms":[{"verbs":["read"]}]}]}`, errcode.AuthorityMissingField, "delegations[0].connector"},
		{"delegation missing terms", `{"delegations":[{"connector":"c"}]}`, errcode.AuthorityMissingField, "delegations[0].terms"},
		{"delegation bad connector", `{"delegations":[{"connector":"a b","terms":[{"verbs":["read"]}]}]}`, errcode.AuthorityInvalidValue, "delegations[0].connector"},
		{"delegation connector not string", `{"delegations":[{"connector":7,"terms":[{"verbs":["read"]}]}]}`, errcode.AuthorityInvalidType, "delegations[0].connector"},
		{"delegation empty terms", `{"delegations":[{"connector":"c","terms":[]}]}`, errcode.AuthorityInvalidValue, "delegations[0].terms"},
		{"delegation duplicate connector", `{"delegations":[{"connector":"c","terms":[{"verbs":["read"]}]},{"connector":"c","terms":[{"verbs":["write"]}]}]}`, errcode.AuthorityDuplicateEntry, "delegations[1].connector"},
		{"delegation principal without mandate", `{"delegations":[{"connector":"c","principal_ref":"actor:x","terms":[{"verbs":["read"]}]}]}`, errcode.AuthorityMissingField, "delegations[0].mandate_ref"},
		{"delegation empty principal", `{"delegations":[{"connector":"c","principal_ref":"","terms":[{"verbs":["read"]}]}]}`, errcode.AuthorityInvalidValue, "delegations[0].principal_ref"},
		{"delegation mandate not string", `{"delegations":[{"connector":"c","mandate_ref":1,"terms":[{"verbs":["read"]}]}]}`, errcode.AuthorityInvalidType, "delegations[0].mandate_ref"},
		{"term missing verbs", `{"delegations":[{"connector":"c","terms":[{"bounds":{}}]}]}`, errcode.AuthorityMissingField, "delegations[0].terms[0].verbs"},
		{"term empty verbs", `{"delegations":[{"connector":"c","terms":[{"verbs":[]}]}]}`, errcode.AuthorityInvalidValue, "delegations[0].terms[0].verbs"},
		{"term unknown verb", `{"delegations":[{"connector":"c","terms":[{"verbs":["delete"]}]}]}`, errcode.AuthorityInvalidValue, "delegations[0].terms[0].verbs[0]"},
		{"term duplicate verb", `{"delegations":[{"connector":"c","terms":[{"verbs":["read","read"]}]}]}`, errcode.AuthorityDuplicateEntry, "delegations[0].terms[0].verbs[1]"},
		{"term bounds not object", `{"delegations":[{"connector":"c","terms":[{"verbs":["read"],"bounds":[1]}]}]}`, errcode.AuthorityInvalidType, "delegations[0].terms[0].bounds"},
		{"term not object", `{"delegations":[{"connector":"c","terms":["read"]}]}`, errcode.AuthorityInvalidType, "delegations[0].terms[0]"},

		// The run's actor.
		{"actor empty", `{"actor_ref":""}`, errcode.AuthorityInvalidValue, "actor_ref"},
		{"actor not string", `{"actor_ref":7}`, errcode.AuthorityInvalidType, "actor_ref"},
		{"actor with space", `{"actor_ref":"actor bot"}`, errcode.AuthorityInvalidValue, "actor_ref"},
		{"actor control", `{"actor_ref":"a\u0007"}`, errcode.AuthorityInvalidValue, "actor_ref"},
		{"actor too long", `{"actor_ref":"` + strings.Repeat("a", 257) + `"}`, errcode.AuthorityInvalidValue, "actor_ref"},
		{"delegation to another actor", `{"actor_ref":"actor:a","delegations":[{"connector":"c","principal_ref":"actor:b","mandate_ref":"m","terms":[{"verbs":["read"]}]}]}`, errcode.AuthorityInvalidValue, "delegations[0].principal_ref"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Parse([]byte(tt.doc))
			if a != nil {
				t.Errorf("a refused document must give no authority, got %+v", a)
			}
			e := wantCode(t, err, tt.code)
			if e.Rule != tt.field {
				t.Errorf("refusal names field %q, want %q (%s)", e.Rule, tt.field, e.Message)
			}
		})
	}
}

// TestRefusalsDoNotEchoTheDocument: a rejected document is never echoed,
// so a secret pasted into the wrong place does not reach a log.
func TestRefusalsDoNotEchoTheDocument(t *testing.T) {
	const secret = "hunter2-secret-value"
	for _, doc := range []string{
		`{"token":"` + secret + `"}`,
		`{"effects":"allow","effects":"` + secret + `"}`,
		`{"delegations":[{"connector":"c","terms":[{"verbs":["read"],"bounds":{"k":"` + secret + `","k":1}}]}]}`,
		`{"max_concurrency":"` + secret + `"}`,
		`{"standing_approvals":[{"local":"` + secret + `"}]}`,
		`{"` + secret[:4] + `":` + `"` + secret + `"`,
	} {
		_, err := Parse([]byte(doc))
		if err == nil {
			t.Fatalf("%s parsed", doc)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("refusal echoes a value: %v", err)
		}
	}
}

func TestParseStandingApprovals(t *testing.T) {
	got, err := ParseStandingApprovals([]byte(`[{"edits":{"paths":[""]}},{"local":true}]`))
	if err != nil || len(got) != 2 || got[0].Kind() != StandingEdits || got[1].Kind() != StandingLocal {
		t.Fatalf("got %+v, %v", got, err)
	}
	_, err = ParseStandingApprovals([]byte(`{"local":true}`))
	wantCode(t, err, errcode.AuthorityInvalidType)
	_, err = ParseStandingApprovals([]byte(`[{"local":true,"local":true}]`))
	wantCode(t, err, errcode.AuthorityInvalidJSON)
	if (StandingApproval{}).Kind() != "" {
		t.Error("an empty entry has no kind")
	}
}
