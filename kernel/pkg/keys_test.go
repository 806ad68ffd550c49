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

	"github.com/runxhq/runx/kernel/pkg/keyref"
	"github.com/runxhq/runx/kernel/pkg/semver"
)

// acceptedKeys indexes keyref.Keys, the reference of every key kernel/pkg
// accepts in run.yaml, tests/*.yaml and connector.yaml (area :: key, the
// area being the decoder's label without names and numbers), by the test
// that shows its effect (see keyref.Key.Evidence). docs/run-yaml.md is
// generated from the same table.
//
// TestEveryAcceptedKey derives the accepted set from the decoder itself, so
// a key added to any decoder list without an entry in keyref fails, and so
// does an entry for a key no longer accepted. Authority documents and
// data-source bindings are decoded by kernel/authority and
// kernel/datasource, whose own strict decoders refuse unknown fields.
var acceptedKeys = func() map[string]string {
	out := make(map[string]string, len(keyref.Keys))
	for _, k := range keyref.Keys {
		out[k.ID()] = k.Evidence
	}
	return out
}()

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
		t.Errorf("%s is accepted by the decoder but has no entry in kernel/pkg/keyref (so none in docs/run-yaml.md): name the test that shows its effect, or refuse it", k)
	}
	for k, ev := range acceptedKeys {
		if !seen[k] {
			t.Errorf("kernel/pkg/keyref lists %s, which the decoder does not accept (or no document reaches)", k)
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
