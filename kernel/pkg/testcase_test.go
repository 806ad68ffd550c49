package pkg

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/sdk/errcode"
)

func TestLoadTests(t *testing.T) {
	tests, err := LoadTests("testdata/hello")
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) != 2 || tests[0].Name != "hello-smoke" || tests[1].Name != "exact null result" {
		t.Fatalf("tests = %v", tests)
	}
	smoke := tests[0]
	x := smoke.Expect
	if smoke.Method != "greet" || smoke.Inputs["name"] != "Ada" || x.Status != "sealed" || x.Outcome != "completed" ||
		x.Output.Mode != CompareSubset || x.Output.Value.(map[string]any)["greeting"] != "hello Ada" ||
		len(x.Absent) != 2 || x.Receipt["schema"] != "runx.receipt.v1" {
		t.Errorf("smoke = %+v expect %+v", smoke, x)
	}

	full := tests[1]
	if full.Package != "fixtures/child" || full.Setup.Receipts[0] != "fixtures/receipt-store/sha256-example.json" ||
		full.Setup.Authority["effects"] != "ask" {
		t.Errorf("setup = %+v", full.Setup)
	}
	h := full.Host
	if h.Act != "greet the reader" || h.Answers["agent"].(map[string]any)["text"] != "hi" || !h.Approvals["send#post"] {
		t.Errorf("host = %+v", h)
	}
	turn := h.Turns["answer"]
	if len(turn.Calls) != 1 || turn.Calls[0].Tool != "data_digest" || turn.Calls[0].Expect.Mode != CompareSubset ||
		turn.Output.(map[string]any)["answer"] != "digested" {
		t.Errorf("turn = %+v", turn)
	}
	if pr := full.Providers.Processes; len(pr) != 1 || pr[0].Tool != "bin/lookup" || pr[0].Args[1] != "7" || pr[0].Result["found"] != true {
		t.Errorf("providers = %+v", full.Providers)
	}
	fx := full.Expect
	if fx.Output.Mode != CompareExact || fx.Output.Value != nil || fx.Steps[0] != "agent" ||
		fx.StepOutputs["agent"].Mode != CompareSubset {
		t.Errorf("expect = %+v", fx)
	}
}

func TestLoadTestsWithoutTestsDir(t *testing.T) {
	tests, err := LoadTests("testdata/implicit")
	if err != nil || len(tests) != 0 {
		t.Fatalf("LoadTests = %v, %v", tests, err)
	}
}

func TestLoadTestRefusals(t *testing.T) {
	cases := []struct {
		name, yaml string
		code       errcode.Code
		line, col  int
	}{
		{"empty", "", errcode.TestInvalid, 1, 1},
		{"no expect", "method: m\n", errcode.TestInvalid, 1, 1},
		{"no status", "expect: { outcome: completed }\n", errcode.TestInvalid, 1, 9},
		{"unknown field", "expect: { status: sealed }\nhots: {}\n", errcode.RunxYAMLUnknownField, 2, 1},
		{"unknown expect field", "expect: { status: sealed, ouptut: {} }\n", errcode.RunxYAMLUnknownField, 1, 27},
		{"anchor", "inputs: { a: &x 1 }\nexpect: { status: sealed }\n", errcode.RunxYAMLAnchorRefused, 1, 14},
		{"duplicate key", "expect: { status: sealed }\nexpect: { status: sealed }\n", errcode.RunxYAMLDuplicateKey, 2, 1},
		{"subset and exact", "expect:\n  status: sealed\n  output: { subset: {}, exact: {} }\n", errcode.TestInvalid, 3, 11},
		{"neither subset nor exact", "expect:\n  status: sealed\n  output: {}\n", errcode.TestInvalid, 3, 11},
		{"output not a mapping", "expect:\n  status: sealed\n  output: null\n", errcode.TestInvalid, 3, 11},
		{"bad pointer", "expect:\n  status: sealed\n  absent: [a/b]\n", errcode.TestInvalid, 3, 12},
		{"bad pointer escape", "expect:\n  status: sealed\n  absent: [/a~2]\n", errcode.TestInvalid, 3, 12},
		{"package outside fixtures", "package: ../other\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 10},
		{"package not normalized", "package: fixtures/./a\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 10},
		{"receipt path escapes", "setup: { receipts: [../r.json] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 21},
		{"receipt not json", "setup: { receipts: [fixtures/r.txt] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 21},
		{"approval not a boolean", "host: { approvals: { post: yes } }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 28},
		{"answered and worked", "host:\n  answers: { a: {} }\n  turns: { a: { output: {} } }\n", errcode.TestInvalid, 3, 12},
		{"turn without output", "host: { turns: { a: { calls: [] } } }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 21},
		{"turn call without tool", "host: { turns: { a: { calls: [{ input: {} }], output: 1 } } }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 31},
		{"unknown provider", "providers: { smtp: [] }\nexpect: { status: sealed }\n", errcode.RunxYAMLUnknownField, 1, 14},
		{"unknown status", "expect: { status: done }\n", errcode.TestInvalid, 1, 19},
		{"unknown outcome", "expect: { status: sealed, outcome: complete }\n", errcode.TestOutcomeUnknown, 1, 36},
		{"http not a list", "providers:\n  http: {}\nexpect: { status: sealed }\n", errcode.TestInvalid, 2, 9},
		{"http body not explicit", "providers: { http: [{ request: { method: GET, url: https://x.invalid/a }, response: { status: 200 } }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 32},
		{"http body neither none nor json", "providers: { http: [{ request: { method: GET, url: https://x.invalid/a, body: some }, response: { status: 200 } }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 79},
		{"http url with credentials", "providers: { http: [{ request: { method: GET, url: \"https://u:p@x.invalid/a\", body: none }, response: { status: 200 } }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 52},
		{"http url with fragment", "providers: { http: [{ request: { method: GET, url: \"https://x.invalid/a#f\", body: none }, response: { status: 200 } }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 52},
		{"http bad method", "providers: { http: [{ request: { method: FETCH, url: https://x.invalid/a, body: none }, response: { status: 200 } }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 42},
		{"http bad status", "providers: { http: [{ request: { method: GET, url: https://x.invalid/a, body: none }, response: { status: 42 } }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 107},
		{"http response headers", "providers: { http: [{ request: { method: GET, url: https://x.invalid/a, body: none }, response: { status: 200, headers: { a: 1 } } }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 126},
		{"http request counts without exchanges", "expect: { status: sealed, http_request_counts: [1] }\n", errcode.TestInvalid, 1, 9},
		{"http request counts negative", "providers: { http: [{ request: { method: GET, url: https://x.invalid/a, body: none }, response: { status: 200, body: x } }] }\nexpect: { status: sealed, http_request_counts: [-1] }\n", errcode.TestInvalid, 2, 49},
		{"mcp not a list", "providers:\n  mcp: {}\nexpect: { status: sealed }\n", errcode.TestInvalid, 2, 8},
		{"mcp without connector", "providers: { mcp: [{ tool: t, result: {} }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 20},
		{"mcp without tool", "providers: { mcp: [{ connector: c, result: {} }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 20},
		{"mcp without an answer", "providers: { mcp: [{ connector: c, tool: t }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 20},
		{"mcp with two answers", "providers: { mcp: [{ connector: c, tool: t, result: {}, error: x }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 20},
		{"mcp result not an object", "providers: { mcp: [{ connector: c, tool: t, result: [] }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 53},
		{"mcp arguments not an object", "providers: { mcp: [{ connector: c, tool: t, arguments: 1, result: {} }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 56},
		{"mcp header not a name", "providers: { mcp: [{ connector: c, tool: t, headers: { \"a b\": x }, result: {} }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 54},
		{"mcp repeated", "providers: { mcp: [{ connector: c, tool: t, headers: { A: x }, result: {} }, { connector: c, tool: t, headers: { a: x }, error: e }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 78},
		{"too many mcp calls", "providers:\n  mcp:\n" + strings.Repeat("    - { connector: c, tool: t, result: {} }\n", MaxTestProcesses+1) + "expect: { status: sealed }\n", errcode.TestInvalid, 3, 5},
		{"providers.hosted", "providers: { hosted: {} }\nexpect: { status: sealed }\n", errcode.TestFieldUnsupported, 1, 14},
		{"setup.credentials not a mapping", "setup: { credentials: [a] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 23},
		{"setup.credentials bad variable", "setup: { credentials: { bad-name: x } }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 25},
		{"setup.credentials empty value", "setup: { credentials: { A_TOKEN: \"\" } }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 34},
		{"process without result", "providers: { processes: [{ tool: t }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 26},
		{"process args not strings", "providers: { processes: [{ tool: t, args: [1], result: {} }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 44},
		{"process result not an object", "providers: { processes: [{ tool: t, result: [] }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 45},
		{"process repeated", "providers: { processes: [{ tool: t, result: {} }, { tool: t, result: {} }] }\nexpect: { status: sealed }\n", errcode.TestInvalid, 1, 51},
		{"too many processes", "providers:\n  processes:\n" + strings.Repeat("    - { tool: t, result: {} }\n", 1) + manyProcesses(MaxTestProcesses) + "expect: { status: sealed }\n", errcode.TestInvalid, 3, 5},
		{"step output comparison", "expect: { status: sealed, step_outputs: { a: { equal: 1 } } }\n", errcode.RunxYAMLUnknownField, 1, 48},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writePackage(t, map[string]string{"tests/case.yaml": c.yaml})
			_, err := LoadTest(filepath.Join(dir, "tests", "case.yaml"))
			wantRefusal(t, err, c.code, c.line, c.col)
		})
	}
}

// TestLoadTestUnknownOutcome holds expect.outcome to the outcomes a run can
// seal with: a misspelt one is refused at load, naming it and every allowed
// outcome, rather than failing every run it is compared against.
func TestLoadTestUnknownOutcome(t *testing.T) {
	dir := writePackage(t, map[string]string{"tests/case.yaml": "expect: { status: sealed, outcome: complete }\n"})
	_, err := LoadTest(filepath.Join(dir, "tests", "case.yaml"))
	wantRefusal(t, err, errcode.TestOutcomeUnknown, 1, 36)
	msg := err.Error()
	if !strings.Contains(msg, `"complete"`) {
		t.Errorf("refusal %q does not name the value", msg)
	}
	for _, o := range seal.RunOutcomes {
		if !strings.Contains(msg, string(o)) {
			t.Errorf("refusal %q does not name the allowed outcome %s", msg, o)
		}
	}
	// skipped is a step's, never a run's: a test expecting it could never pass.
	dir = writePackage(t, map[string]string{"tests/case.yaml": "expect: { status: sealed, outcome: skipped }\n"})
	_, err = LoadTest(filepath.Join(dir, "tests", "case.yaml"))
	wantRefusal(t, err, errcode.TestOutcomeUnknown, 1, 36)
	for _, o := range seal.RunOutcomes {
		yaml := fmt.Sprintf("expect: { status: sealed, outcome: %s }\n", o)
		dir := writePackage(t, map[string]string{"tests/case.yaml": yaml})
		if tc, err := LoadTest(filepath.Join(dir, "tests", "case.yaml")); err != nil || tc.Expect.Outcome != o {
			t.Errorf("outcome %s: LoadTest = %+v, %v", o, tc, err)
		}
	}
}

func manyProcesses(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "    - { tool: t, args: [\"%d\"], result: {} }\n", i)
	}
	return b.String()
}

func TestLoadTestNameDefaultsToStem(t *testing.T) {
	dir := writePackage(t, map[string]string{"tests/smoke-run.yaml": "expect: { status: needs_approval }\n"})
	tc, err := LoadTest(filepath.Join(dir, "tests", "smoke-run.yaml"))
	if err != nil || tc.Name != "smoke-run" || tc.Expect.Output != nil {
		t.Fatalf("LoadTest = %+v, %v", tc, err)
	}
}
