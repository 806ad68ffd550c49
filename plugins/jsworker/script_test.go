package jsworker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/plugins/jsworker/engine"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var runClock = time.Date(2031, time.March, 4, 5, 6, 7, 0, time.UTC)

// invoke calls capability with req as its input and the run's clock.
func invoke(t *testing.T, capability string, req any) *plugin.Result {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return New().Invoke(context.Background(), &plugin.Call{Capability: capability, Input: in, Context: plugin.Context{Clock: runClock}})
}

func scriptRequest(module string, record []engine.Recorded) ScriptRequest {
	return ScriptRequest{
		Request:  Request{Entry: "main.mjs", Files: map[string]string{"main.mjs": module}, Input: json.RawMessage(`{"n":2}`)},
		Record:   record,
		MaxCalls: 10,
	}
}

// answerOf asserts an ok result and decodes its answer.
func answerOf(t *testing.T, res *plugin.Result) ScriptAnswer {
	t.Helper()
	if res.Status != plugin.StatusOK {
		t.Fatalf("status %s: %s %s", res.Status, res.Code, res.Message)
	}
	var a ScriptAnswer
	if err := json.Unmarshal(res.Output, &a); err != nil {
		t.Fatalf("answer %s: %v", res.Output, err)
	}
	return a
}

// settle records a pending request as the kernel would: a call or read
// answered with its own input, a wait at its until.
func settle(p engine.Pending) engine.Recorded {
	if p.Kind == engine.KindWait {
		return engine.Recorded{Index: p.Index, Kind: p.Kind, SettledAt: p.Until}
	}
	sum := sha256.Sum256(p.Input)
	return engine.Recorded{Index: p.Index, Kind: p.Kind, Tool: p.Tool, InputDigest: "sha256:" + hex.EncodeToString(sum[:]), Output: p.Input}
}

const scriptModule = `export default async function (input, ctx) {
	const [a, b] = await Promise.all([ctx.call("x.one", { n: input.n }), ctx.call("x.two", { s: "<&>" })]);
	const lead = await ctx.read({ $ref: "artifact:1" });
	const at = await ctx.wait({ until: Date.now() + 1000 });
	return { a, b, lead, at, region: ctx.environment.REGION };
}`

func TestScriptDrivenToCompletion(t *testing.T) {
	answers := compile(t, scriptDefinition.OutputSchema)
	var record []engine.Recorded
	var rounds []string
	for i := 0; ; i++ {
		req := scriptRequest(scriptModule, record)
		req.Environment = map[string]string{"REGION": "eu"}
		res := invoke(t, ScriptCapability, req)
		a := answerOf(t, res)
		mustValidate(t, answers, res.Output)
		if a.Status == ScriptDone {
			want := `{"a":{"n":2},"b":{"s":"<&>"},"lead":{"$ref":"artifact:1"},"at":` +
				strconv.FormatInt(runClock.UnixMilli()+1000, 10) + `,"region":"eu"}`
			if string(a.Output) != want {
				t.Fatalf("output %s, want %s", a.Output, want)
			}
			break
		}
		if a.Status != ScriptSuspended || len(a.Pending) == 0 {
			t.Fatalf("answer %s", res.Output)
		}
		// The canonical input reaches the kernel unescaped, as digested.
		if i == 0 && !bytes.Contains(res.Output, []byte(`"input":{"s":"<&>"}`)) {
			t.Fatalf("pending input was re-escaped: %s", res.Output)
		}
		var kinds []string
		for _, p := range a.Pending {
			kinds = append(kinds, strconv.Itoa(p.Index)+":"+string(p.Kind))
			record = append(record, settle(p))
		}
		rounds = append(rounds, strings.Join(kinds, ","))
		if i > 10 {
			t.Fatal("the script never finished")
		}
	}
	if got := strings.Join(rounds, " | "); got != "0:call,1:call | 2:read | 3:wait" {
		t.Fatalf("suspended as %s", got)
	}
}

func TestScriptFailuresAreTypedResults(t *testing.T) {
	asksOther := scriptRequest(scriptModule, []engine.Recorded{{Index: 0, Kind: engine.KindCall, Tool: "x.other",
		InputDigest: "sha256:" + strings.Repeat("0", 64), Output: json.RawMessage(`{}`)}})
	noMax := scriptRequest(scriptModule, nil)
	noMax.MaxCalls = 0
	tooMany := scriptRequest(scriptModule, nil)
	tooMany.MaxCalls = 1
	bare := scriptRequest(`import x from "lodash"; export default async function () { return {} }`, nil)
	for name, tc := range map[string]struct {
		req    ScriptRequest
		status string
		code   errcode.Code
	}{
		"nondeterministic":  {asksOther, plugin.StatusFailed, errcode.ScriptNondeterministic},
		"max_calls missing": {noMax, plugin.StatusFailed, errcode.ScriptMaxCallsInvalid},
		"max_calls":         {tooMany, plugin.StatusFailed, errcode.ScriptMaxCallsExceeded},
		"bare import":       {bare, plugin.StatusRefused, errcode.ModuleImportBare},
	} {
		t.Run(name, func(t *testing.T) {
			res := invoke(t, ScriptCapability, tc.req)
			if res.Status != tc.status || res.Code != tc.code {
				t.Fatalf("got %s %s (%s), want %s %s", res.Status, res.Code, res.Message, tc.status, tc.code)
			}
		})
	}

	res := New().Invoke(context.Background(), &plugin.Call{Capability: ScriptCapability, Input: []byte(`[]`), Context: plugin.Context{Clock: runClock}})
	if res.Status != plugin.StatusRefused || res.Code != "module_request_invalid" {
		t.Fatalf("a malformed request: %+v", res)
	}
	in, _ := json.Marshal(scriptRequest(scriptModule, nil))
	res = New().Invoke(context.Background(), &plugin.Call{Capability: ScriptCapability, Input: in})
	if res.Status != plugin.StatusRefused || res.Code != "module_clock_missing" {
		t.Fatalf("no clock: %+v", res)
	}
}

func TestInfoDeclaresBothCapabilities(t *testing.T) {
	info := New().Info()
	byID := map[string]plugin.Definition{}
	for _, d := range info.Capabilities {
		byID[d.ID] = d
	}
	for _, id := range []string{Capability, ScriptCapability} {
		d, ok := byID[id]
		if !ok {
			t.Fatalf("Info lacks %s", id)
		}
		if d.Effect != plugin.EffectNone || d.Approval != plugin.ApprovalNone {
			t.Fatalf("%s declares effect %s, approval %s", id, d.Effect, d.Approval)
		}
	}

	script := byID[ScriptCapability]
	in := compile(t, script.InputSchema)
	out := compile(t, script.OutputSchema)
	sr := scriptRequest(scriptModule, []engine.Recorded{
		{Index: 0, Kind: engine.KindCall, Tool: "x.one", InputDigest: "sha256:" + strings.Repeat("a", 64), Output: json.RawMessage(`{"n":2}`)},
		{Index: 3, Kind: engine.KindWait, SettledAt: 5},
	})
	sr.Environment, sr.TimeoutMS = map[string]string{"REGION": "eu"}, 2000
	req, _ := json.Marshal(sr)
	mustValidate(t, in, req)
	for _, answer := range []string{
		`{"status":"done","output":{"a":1}}`,
		`{"status":"suspended","pending":[{"index":0,"kind":"call","tool":"x","input":{}},{"index":1,"kind":"wait","until":9}]}`,
	} {
		mustValidate(t, out, []byte(answer))
	}
	if err := validate(out, []byte(`{"status":"suspended","pending":[]}`)); err == nil {
		t.Fatal("the output schema admits a suspension on nothing")
	}
}

// Serving (sdk.Serve calls SetupProcess) puts the worker process in UTC.
func TestServingIsInUTC(t *testing.T) {
	time.Local = time.FixedZone("UTC+5", 5*3600)
	setupWorkerProcess(t)
	if time.Local != time.UTC {
		t.Fatalf("time.Local is %v after SetupProcess", time.Local)
	}
	res := invoke(t, Capability, Request{Entry: "main.mjs", Input: json.RawMessage(`{}`), Files: map[string]string{
		"main.mjs": `export default function () { const d = new Date(0); return { hours: d.getHours(), offset: d.getTimezoneOffset() } }`,
	}})
	if res.Status != plugin.StatusOK || string(res.Output) != `{"hours":0,"offset":0}` {
		t.Fatalf("got %s %s %s", res.Status, res.Message, res.Output)
	}
}

func compile(t *testing.T, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	return s
}

func validate(s *jsonschema.Schema, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

func mustValidate(t *testing.T, s *jsonschema.Schema, doc []byte) {
	t.Helper()
	if err := validate(s, doc); err != nil {
		t.Fatalf("%s does not validate: %v", doc, err)
	}
}
