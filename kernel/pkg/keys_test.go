package pkg

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg/semver"
)

// acceptedKeys names, for every key kernel/pkg accepts in run.yaml and
// tests/*.yaml (area :: key, the area being the decoder's label without
// names and numbers), the test that shows its effect:
//
//   - "script:<name>": cmd/runx/testdata/script/<name>.txtar, which must
//     write the key;
//   - "<TestName>": a test function of this package;
//   - "refused:<TestName>": the key is refused (<area>_unsupported) and that
//     test asserts the refusal.
//
// TestEveryAcceptedKey derives the accepted set from the decoder itself, so
// a key added to any decoder list without an entry here fails, and so does
// an entry for a key no longer accepted. Authority documents and data-source
// bindings are decoded by kernel/authority and kernel/datasource, whose own
// strict decoders refuse unknown fields.
var acceptedKeys = map[string]string{
	"connector credential :: header":                    "script:runx_test_credentials",
	"connector credential :: scheme":                    "script:runx_test_credentials",
	"connector credential :: variable":                  "script:runx_test_credentials",
	"connector operation :: approval":                   "script:runx_test_http",
	"connector operation :: cost":                       "script:runx_test_http",
	"connector operation :: idempotency":                "script:runx_test_http",
	"connector operation :: inputs":                     "script:runx_test_http",
	"connector operation :: outputs":                    "script:runx_test_http",
	"connector operation :: payment":                    "TestConnectorPayment",
	"connector operation payment :: amount":             "TestConnectorPayment",
	"connector operation payment :: currency":           "TestConnectorPayment",
	"connector operation :: readbacks":                  "script:runx_test_http",
	"connector operation :: request":                    "script:runx_test_http",
	"connector operation :: scopes":                     "script:runx_test_http",
	"connector operation :: summary":                    "TestLoadConnector",
	"connector operation :: target":                     "script:runx_test_http",
	"connector operation :: verb":                       "script:runx_test_http",
	"connector operation cost :: per":                   "script:runx_test_http",
	"connector operation cost :: source":                "script:runx_test_http",
	"connector operation cost :: source_url":            "TestLoadConnector",
	"connector operation cost :: usd_micro":             "script:runx_test_http",
	"connector operation idempotency :: header":         "script:runx_test_http",
	"connector operation idempotency :: window_seconds": "script:runx_test_http",
	"connector operation input :: default":              "TestLoadConnector",
	"connector operation input :: description":          "TestLoadConnector",
	"connector operation input :: required":             "script:runx_test_http",
	"connector operation input :: schema":               "TestLoadConnector",
	"connector operation input :: type":                 "script:runx_test_http",
	"connector operation outputs :: description":        "TestLoadConnector",
	"connector operation outputs :: optional":           "TestLoadConnector",
	"connector operation outputs :: schema":             "TestLoadConnector",
	"connector operation outputs :: type":               "script:runx_test_http",
	"connector operation readback :: confirms":          "script:runx_test_http",
	"connector operation readback :: inputs":            "script:runx_test_http",
	"connector operation readback :: operation":         "script:runx_test_http",
	"connector operation request :: body":               "script:runx_test_http",
	"connector operation request :: method":             "script:runx_test_http",
	"connector operation request :: path":               "script:runx_test_http",
	"connector operation request :: query":              "TestLoadConnector",
	"connector.yaml :: base_url":                        "script:runx_test_http",
	"connector.yaml :: credential":                      "script:runx_test_credentials",
	"connector.yaml :: id":                              "script:runx_test_http",
	"connector.yaml :: operations":                      "script:runx_test_http",
	"connector.yaml :: version":                         "script:runx_test_http",
	"connector operation outputs :: packet":             "refused:TestConnectorRefusals",
	"expect :: absent":                                  "script:runx_test_host",
	"expect :: http_request_counts":                     "script:runx_test_http",
	"expect :: outcome":                                 "script:runx_test_host",
	"expect :: output":                                  "script:hostile_modules",
	"expect :: receipt":                                 "script:verify_tamper",
	"expect :: status":                                  "script:hostile_modules",
	"expect :: step_outputs":                            "script:runx_test_host",
	"expect :: steps":                                   "script:authority",
	"expect output :: exact":                            "script:runx_test_host",
	"expect output :: subset":                           "script:hostile_modules",
	"expect step_outputs :: exact":                      "script:runx_test_host",
	"expect step_outputs :: subset":                     "script:hostile_modules",
	"host :: act":                                       "script:runx_test_host",
	"host :: answers":                                   "script:runx_test_host",
	"host :: approvals":                                 "script:runx_test_host",
	"host :: turns":                                     "script:runx_test_turns",
	"host turn :: calls":                                "script:runx_test_turns",
	"host turn :: output":                               "script:runx_test_turns",
	"host turn call :: expect":                          "script:runx_test_turns",
	"host turn call :: input":                           "script:runx_test_turns",
	"host turn call :: tool":                            "script:runx_test_turns",
	"host turn call expect :: exact":                    "script:runx_test_host",
	"host turn call expect :: subset":                   "script:runx_test_turns",
	"method :: description":                             "script:authority",
	"method :: effects":                                 "script:authority",
	"method :: inputs":                                  "script:authority_limits",
	"method :: outputs":                                 "script:pause_resume",
	"method :: reach":                                   "script:reach_paths",
	"method :: result_from":                             "script:result_contracts",
	"method :: steps":                                   "script:authority",
	"method input :: default":                           "script:authority_limits",
	"method input :: description":                       "script:authority",
	"method input :: required":                          "script:inputs",
	"method input :: schema":                            "TestBindInputs",
	"method input :: type":                              "script:authority_limits",
	"method outputs :: description":                     "script:authority",
	"method outputs :: optional":                        "script:process_tool",
	"method outputs :: packet":                          "refused:TestStepRefusals",
	"method outputs :: schema":                          "script:output_schema",
	"method outputs :: type":                            "script:authority_limits",
	"providers :: hosted":                               "refused:TestLoadTestRefusals",
	"providers :: http":                                 "script:runx_test_http",
	"providers http :: request":                         "script:runx_test_http",
	"providers http :: response":                        "script:runx_test_http",
	"providers http request :: method":                  "script:runx_test_http",
	"providers http request :: url":                     "script:runx_test_http",
	"providers http request :: body":                    "script:runx_test_http",
	"providers http request body :: json":               "script:runx_test_http",
	"providers http response :: status":                 "script:runx_test_http",
	"providers http response :: headers":                "script:runx_test_http",
	"providers http response :: body":                   "script:runx_test_http",
	"providers :: mcp":                                  "refused:TestLoadTestRefusals",
	"providers :: processes":                            "script:runx_test_setup",
	"providers processes :: args":                       "script:runx_test_setup",
	"providers processes :: result":                     "script:runx_test_setup",
	"providers processes :: tool":                       "script:runx_test_setup",
	"run.yaml :: default_method":                        "TestSelectMethod",
	"run.yaml :: connectors":                            "TestConnectorPins",
	"run.yaml connectors :: manifest_digest":            "TestConnectorPins",
	"run.yaml :: methods":                               "script:authority",
	"run.yaml :: minimum_runx":                          "script:authority",
	"setup :: authority":                                "script:runx_test_setup",
	"setup :: credentials":                              "script:runx_test_credentials",
	"setup :: receipts":                                 "script:runx_test_setup",
	"step agent :: ask":                                 "script:authority",
	"step agent :: calls":                               "script:authority_limits",
	"step agent :: context":                             "refused:TestStepRefusals",
	"step agent :: task":                                "script:pause_resume",
	"step agent calls :: load":                          "refused:TestStepRefusals",
	"step agent calls :: operations":                    "script:authority_limits",
	"step agent calls :: skills":                        "script:authority_limits",
	"step agent calls :: tools":                         "script:receipt_tools",
	"step approval :: reason":                           "script:own_approval",
	"step approval :: type":                             "script:authority_limits",
	"step ask :: questions":                             "script:resume_rules",
	"step ask :: reason":                                "script:own_approval",
	"step environment :: optional":                      "script:process_tool",
	"step environment :: required":                      "script:inputs",
	"step of method :: agent":                           "script:pause_resume",
	"step of method :: approval":                        "script:own_approval",
	"step of method :: ask":                             "script:authority",
	"step of method :: concurrency":                     "script:authority_limits",
	"step of method :: effects":                         "script:authority",
	"step of method :: for_each":                        "script:authority_limits",
	"step of method :: id":                              "script:authority",
	"step of method :: idempotency_key":                 "script:authority_limits",
	"step of method :: inputs":                          "script:authority_limits",
	"step of method :: operation":                       "script:authority_limits",
	"step of method :: outputs":                         "script:pause_resume",
	"step of method :: reach":                           "script:reach_paths",
	"step of method :: result":                          "refused:TestStepRefusals",
	"step of method :: result_as":                       "script:runx_test_host",
	"step of method :: retry":                           "script:step_retry",
	"step of method :: script":                          "script:authority_limits",
	"step of method :: skill":                           "script:authority_limits",
	"step of method :: timeout_seconds":                 "script:hostile_modules",
	"step of method :: tool":                            "script:authority",
	"step of method :: when":                            "script:workflows",
	"step outputs :: description":                       "script:authority",
	"step outputs :: optional":                          "script:process_tool",
	"step outputs :: packet":                            "refused:TestStepRefusals",
	"step outputs :: schema":                            "script:output_schema",
	"step outputs :: type":                              "script:authority_limits",
	"step question :: free_text":                        "TestLoadEveryStepKind",
	"step question :: id":                               "script:authority",
	"step question :: options":                          "script:resume_rules",
	"step question :: prompt":                           "script:resume_rules",
	"step question :: required":                         "script:inputs",
	"step question option :: detail":                    "TestLoadEveryStepKind",
	"step question option :: label":                     "script:inputs",
	"step retry :: max_attempts":                        "script:step_retry",
	"step retry :: retry_after_seconds":                 "script:step_retry",
	"step script :: calls":                              "script:authority_limits",
	"step script :: concurrency":                        "script:authority_limits",
	"step script :: max_calls":                          "script:scripts",
	"step script :: module":                             "script:authority_limits",
	"step script calls :: load":                         "refused:TestStepRefusals",
	"step script calls :: operations":                   "script:authority_limits",
	"step script calls :: skills":                       "script:authority_limits",
	"step script calls :: tools":                        "script:receipt_tools",
	"step tool :: args":                                 "script:authority",
	"step tool :: command":                              "script:authority",
	"step tool :: cwd":                                  "script:reach_paths",
	"step tool :: environment":                          "script:process_tool",
	"step tool :: input_mode":                           "script:pause_resume",
	"step tool :: module":                               "script:authority_limits",
	"step tool :: requires":                             "script:step_retry",
	"the test :: expect":                                "script:hostile_modules",
	"the test :: host":                                  "script:runx_test_host",
	"the test :: inputs":                                "script:authority_limits",
	"the test :: method":                                "script:hostile_modules",
	"the test :: name":                                  "script:authority",
	"the test :: package":                               "TestLoadTests",
	"the test :: providers":                             "script:runx_test_setup",
	"the test :: setup":                                 "script:runx_test_setup",
}

var nameOrNumber = regexp.MustCompile(`"[^"]*"|\b\d+\b`)

// observedKeys runs the decoder over every YAML document of the repository
// and the fixtures here, recording each mapping it reads and the keys it
// accepts there.
func observedKeys(t *testing.T) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	keyObserver = func(what string, allowed []string) {
		area := strings.Join(strings.Fields(nameOrNumber.ReplaceAllString(what, "")), " ")
		for _, k := range allowed {
			seen[area+" :: "+k] = true
		}
	}
	defer func() { keyObserver = nil }()
	runx, err := semver.Parse(testRunx)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range yamlCorpus(t) {
		if doc.lineOffset == 0 && !strings.Contains(doc.name, "/tests/") {
			_, _ = decodeProfile(doc.name, doc.src, "corpus", runx, testRunx) // refusals are other tests' business
		}
	}
	if _, err := decodeProfile("planning", []byte(planningProfile(8)), "planning", runx, testRunx); err != nil {
		t.Fatal(err)
	}
	if _, err := Load("testdata/multi", LoadOptions{RunxVersion: testRunx}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load("testdata/connected", LoadOptions{RunxVersion: testRunx}); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTests("testdata/connected"); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTests("testdata/hello"); err != nil {
		t.Fatal(err)
	}
	return seen
}

// testFuncs lists the Test functions of this package's _test.go files.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				out[fn.Name.Name] = true
			}
		}
	}
	return out
}

// TestEveryAcceptedKey: each key the decoder accepts has a test showing its
// effect, or is refused with a test asserting it (issue 10: enforce or
// refuse).
func TestEveryAcceptedKey(t *testing.T) {
	seen := observedKeys(t)
	funcs := testFuncs(t)
	var missing []string
	for k := range seen {
		if _, ok := acceptedKeys[k]; !ok {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		t.Errorf("%s is accepted by the decoder but has no entry in acceptedKeys: name the test that shows its effect, or refuse it", k)
	}
	for k, ev := range acceptedKeys {
		if !seen[k] {
			t.Errorf("acceptedKeys lists %s, which the decoder does not accept (or no document reaches)", k)
			continue
		}
		key := k[strings.LastIndex(k, " :: ")+4:]
		switch {
		case strings.HasPrefix(ev, "script:"):
			raw, err := os.ReadFile(filepath.Join("..", "..", "cmd", "runx", "testdata", "script", strings.TrimPrefix(ev, "script:")+".txtar"))
			if err != nil {
				t.Errorf("%s: %v", k, err)
			} else if !regexp.MustCompile(`(^|[\s{,])` + regexp.QuoteMeta(key) + `:`).Match(raw) {
				t.Errorf("%s: %s never writes %s:", k, ev, key)
			}
		default:
			name := strings.TrimPrefix(ev, "refused:")
			if !funcs[name] {
				t.Errorf("%s: no test function %s in kernel/pkg", k, name)
			}
			if strings.HasPrefix(ev, "refused:") && !testMentions(t, name, key) {
				t.Errorf("%s: %s does not exercise %s", k, name, key)
			}
		}
	}
}

// testMentions reports whether the body of test function name holds key.
func testMentions(t *testing.T, name, key string) bool {
	t.Helper()
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(raw, []byte("func "+name+"("))
		if i < 0 {
			continue
		}
		end := bytes.Index(raw[i+1:], []byte("\nfunc "))
		if end < 0 {
			end = len(raw) - i - 1
		}
		return bytes.Contains(raw[i:i+1+end], []byte(key))
	}
	return false
}
