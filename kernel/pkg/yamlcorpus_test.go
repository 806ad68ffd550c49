package pkg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
)

// The corpus tests hold the YAML reader (goccy/go-yaml under the strict
// subset, yamlread.go) to every document in the repository, to generated
// documents and to fuzzed bytes. The subset's refusals, with their codes and
// positions, are pinned in yamlparse_test.go and strictyaml_test.go.

// yamlDoc names one document of the corpus.
type corpusDoc struct {
	name       string
	src        []byte
	lineOffset int
}

// yamlCorpus gathers the repository's YAML: the packages under examples/,
// skills/ and testdata/, the packages inside the CLI's script tests, and
// SKILL.md front matter (read with its line offset, as Load reads it).
func yamlCorpus(t testing.TB) []corpusDoc {
	t.Helper()
	var docs []corpusDoc
	add := func(name string, src []byte) {
		if filepath.Base(name) == SkillFile {
			src = bytes.TrimPrefix(src, []byte("\ufeff"))
			first, rest, _ := bytes.Cut(src, []byte("\n"))
			if strings.TrimRight(string(first), " \t\r") != "---" {
				return
			}
			if front, _, ok := cutFrontMatter(rest); ok {
				docs = append(docs, corpusDoc{name: name, src: front, lineOffset: 1})
			}
			return
		}
		if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
			docs = append(docs, corpusDoc{name: name, src: src})
		}
	}
	for _, root := range []string{"../../examples", "../../skills", "testdata"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			src, err := os.ReadFile(path)
			if err == nil {
				add(path, src)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	scripts, _ := filepath.Glob("../../cmd/runx/testdata/script/*.txtar")
	for _, path := range scripts {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for name, body := range txtarFiles(src) {
			add(path+":"+name, body)
		}
	}
	if len(docs) < 20 {
		t.Fatalf("the corpus holds %d documents; the repository's packages have moved?", len(docs))
	}
	return docs
}

// txtarFiles splits a txtar archive ("-- name --" lines) into its files.
func txtarFiles(src []byte) map[string][]byte {
	files := map[string][]byte{}
	var name string
	var body []byte
	flush := func() {
		if name != "" {
			files[name] = body
		}
	}
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		trimmed := strings.TrimSpace(string(line))
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			name, body = strings.TrimSpace(trimmed[3:len(trimmed)-3]), nil
			continue
		}
		if name != "" {
			body = append(body, line...)
		}
	}
	flush()
	return files
}

// diffNodes describes the first difference between two node trees ("" when
// they are equal), comparing positions too when withPos is set.
func diffNodes(path string, a, b *node, withPos bool) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil || b == nil:
		return fmt.Sprintf("%s: %v vs %v", path, a, b)
	case a.kind != b.kind:
		return fmt.Sprintf("%s: %s vs %s", path, a.describe(), b.describe())
	case withPos && a.pos != b.pos:
		return fmt.Sprintf("%s: at %v vs %v", path, a.pos, b.pos)
	}
	switch a.kind {
	case mapNode:
		if len(a.entries) != len(b.entries) {
			return fmt.Sprintf("%s: %d entries vs %d", path, len(a.entries), len(b.entries))
		}
		for i := range a.entries {
			ea, eb := a.entries[i], b.entries[i]
			if ea.key != eb.key || (withPos && ea.keyPos != eb.keyPos) {
				return fmt.Sprintf("%s: key %q at %v vs %q at %v", path, ea.key, ea.keyPos, eb.key, eb.keyPos)
			}
			if d := diffNodes(path+"/"+ea.key, ea.value, eb.value, withPos); d != "" {
				return d
			}
		}
	case seqNode:
		if len(a.items) != len(b.items) {
			return fmt.Sprintf("%s: %d items vs %d", path, len(a.items), len(b.items))
		}
		for i := range a.items {
			if d := diffNodes(fmt.Sprintf("%s/%d", path, i), a.items[i], b.items[i], withPos); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(a.value, b.value) {
			return fmt.Sprintf("%s: %#v vs %#v", path, a.value, b.value)
		}
	}
	return ""
}

// TestYAMLReaderOnCorpus reads every YAML document in the repository: each
// is read, or refused with a typed code; what is read means the same when it
// is written back out as JSON (a YAML flow document) and read again, and the
// positions it carries point inside the file.
func TestYAMLReaderOnCorpus(t *testing.T) {
	read := 0
	for _, doc := range yamlCorpus(t) {
		got, err := parseStrict("f.yaml", doc.src, doc.lineOffset)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%s: untyped failure %T: %v", doc.name, err, err)
			}
			continue
		}
		read++
		checkRoundTrip(t, doc.name, got)
		checkPositions(t, doc.name, got, doc.lineOffset+bytes.Count(doc.src, []byte("\n"))+1)
	}
	if read < 20 {
		t.Fatalf("only %d documents of the corpus read", read)
	}
}

// checkRoundTrip holds a reading to the JSON it writes back out.
// escapeControls writes the control characters encoding/json leaves raw
// (DEL and U+0080-U+009F, which an escaped YAML string may hold) as JSON
// escapes, since a YAML file may not hold them raw.
func escapeControls(text []byte) []byte {
	var b strings.Builder
	for _, r := range string(text) {
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return []byte(b.String())
}

func floatsWithExponent(v any) any {
	switch v := v.(type) {
	case float64:
		return json.Number(strconv.FormatFloat(v, 'e', -1, 64))
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = floatsWithExponent(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = floatsWithExponent(x)
		}
		return out
	}
	return v
}

func checkRoundTrip(t *testing.T, name string, got *node) {
	t.Helper()
	text, err := json.Marshal(got.toValue())
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	// Floats are written with an exponent to be read again, so a float
	// such as 1e16 is not read back as an integer too large to hold.
	readable, err := json.Marshal(floatsWithExponent(got.toValue()))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	again, err := parseStrict("f.json", escapeControls(readable), 0)
	if err != nil {
		t.Errorf("%s: its JSON does not read back: %v\n%s", name, err, text)
		return
	}
	// Compared as JSON text: a float written 554.0 reads back as an integer.
	if back, _ := json.Marshal(again.toValue()); !bytes.Equal(text, back) {
		t.Errorf("%s: its JSON reads back differently: %s, then %s", name, text, back)
	}
}

// checkPositions holds every node and key to a position inside the file.
func checkPositions(t *testing.T, name string, n *node, lines int) {
	t.Helper()
	var walk func(path string, n *node)
	walk = func(path string, n *node) {
		if n == nil {
			return
		}
		if n.pos.Line < 1 || n.pos.Line > lines || n.pos.Column < 1 {
			t.Errorf("%s: %s at %v, outside its %d lines", name, path, n.pos, lines)
		}
		for _, e := range n.entries {
			if e.keyPos.Line < 1 || e.keyPos.Line > lines || e.keyPos.Column < 1 {
				t.Errorf("%s: key %s/%s at %v", name, path, e.key, e.keyPos)
			}
			walk(path+"/"+e.key, e.value)
		}
		for i, it := range n.items {
			walk(fmt.Sprintf("%s/%d", path, i), it)
		}
	}
	walk("", n)
}

// TestYAMLReaderOnGeneratedDocuments writes random values in random styles
// and holds the reader to the values they were written from.
func TestYAMLReaderOnGeneratedDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(genSeed(), 2))
	n := 3000
	fmt.Sscan(os.Getenv("RUNX_YAML_DOCS"), &n)
	if testing.Short() {
		n = 300
	}
	for i := range n {
		g := &yamlGen{rng: rng}
		want := g.value(0)
		src := g.document(want)
		name := fmt.Sprintf("generated %d", i)
		got, err := parseStrict("f.yaml", []byte(src), 0)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		if !reflect.DeepEqual(got.toValue(), want) {
			t.Fatalf("%s: read %#v\nwant %#v\n%s", name, got.toValue(), want, src)
		}
	}
}

// genSeed is 1 unless RUNX_YAML_SEED says otherwise, so a run can explore.
func genSeed() uint64 {
	var seed uint64 = 1
	fmt.Sscan(os.Getenv("RUNX_YAML_SEED"), &seed)
	return seed
}

// FuzzYAMLParser holds the reader to its contract on any bytes: it never
// panics (goccy's own panics are refusals); every failure is a typed
// refusal; what it accepts holds no anchor, alias, tag or merge key (each
// would have been refused), and reads back from its JSON unchanged.
func FuzzYAMLParser(f *testing.F) {
	for _, doc := range yamlCorpus(f) {
		if doc.lineOffset == 0 {
			f.Add(doc.src)
		}
	}
	g := &yamlGen{rng: rand.New(rand.NewPCG(3, 4))}
	for range 20 {
		f.Add([]byte(g.document(g.value(0))))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, err := parseStrict("f.yaml", src, 0)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("untyped failure %T: %v", err, err)
			}
			return
		}
		if hasKey(got, "<<") {
			t.Fatalf("a merge key was read as a key\n%q", src)
		}
		checkRoundTrip(t, "fuzz", got)
	})
}

// hasKey reports whether any mapping in the tree has the key.
func hasKey(n *node, key string) bool {
	if n == nil {
		return false
	}
	for _, e := range n.entries {
		if e.key == key || hasKey(e.value, key) {
			return true
		}
	}
	for _, it := range n.items {
		if hasKey(it, key) {
			return true
		}
	}
	return false
}

// TestYAMLParserOnYAMLTestSuite reads the YAML test suite's cases
// (github.com/yaml/yaml-test-suite: a directory of cases, each with in.yaml
// and the JSON it means in in.json) when RUNX_YAML_TEST_SUITE names one: every
// case the parser accepts must read as its JSON. Cases outside the subset are
// refused, which the test only counts.
func TestYAMLParserOnYAMLTestSuite(t *testing.T) {
	dir := os.Getenv("RUNX_YAML_TEST_SUITE")
	if dir == "" {
		t.Skip("set RUNX_YAML_TEST_SUITE to a copy of the YAML test suite's cases to run this")
	}
	var read, refused, noJSON int
	var lenient []string // cases the suite says are not YAML, read anyway
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "in.yaml" {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, perr := parseStrict("in.yaml", src, 0)
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), "error")); err == nil {
			if perr == nil {
				lenient = append(lenient, strings.TrimPrefix(filepath.Dir(path), dir+"/"))
			}
			return nil
		}
		want, err := os.ReadFile(filepath.Join(filepath.Dir(path), "in.json"))
		if err != nil {
			noJSON++
			return nil
		}
		if perr != nil {
			refused++
			return nil
		}
		read++
		wantValue, jerr := jsonvalue.Decode(want)
		if jerr != nil {
			return nil // several documents, or numbers beyond the shared shape
		}
		if !reflect.DeepEqual(got.toValue(), wantValue) {
			g, _ := json.Marshal(got.toValue())
			t.Errorf("%s: read %s, want %s\n%s", filepath.Dir(path), g, bytes.TrimSpace(want), src)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases read, %d refused, %d without JSON; %d invalid cases read anyway: %v", read, refused, noJSON, len(lenient), lenient)
}
