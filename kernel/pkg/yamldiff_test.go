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
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The differential tests hold runx's YAML parser to the reader it replaced
// (goccy/go-yaml under the strict subset, kept in strictyaml_goccy_test.go):
// on every valid document both read, the values, and the positions refusals
// would point at, must be equal.

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

// checkAgainstGoccy parses src with both readers. When the old one accepts
// it, the new one must too, with the same tree (positions included when
// withPos); when the old one refuses it with a subset code, the new one must
// refuse it with the same code at the same position.
func checkAgainstGoccy(t *testing.T, name string, src []byte, lineOffset int, withPos bool) {
	t.Helper()
	want, wantErr := goccyParseStrict("f.yaml", src, lineOffset)
	got, gotErr := parseStrict("f.yaml", src, lineOffset)
	if wantErr != nil {
		we := wantErr.(*Error)
		if gotErr == nil {
			t.Errorf("%s: goccy refuses (%v) but the parser accepts:\n%s", name, wantErr, src)
			return
		}
		ge := gotErr.(*Error)
		if subsetCode(we.Code) && (ge.Code != we.Code || ge.Line != we.Line || ge.Column != we.Column) {
			t.Errorf("%s: goccy refuses with %v (%s), the parser with %v (%s):\n%s", name, we, we.Code, ge, ge.Code, src)
		}
		return
	}
	if gotErr != nil {
		t.Errorf("%s: goccy accepts but the parser refuses: %v\n%s", name, gotErr, src)
		return
	}
	if withPos {
		nullAtEnd(want, src, lineOffset)
	}
	if d := diffNodes("", want, got, withPos); d != "" {
		t.Errorf("%s: goccy vs parser differ at %s\n%s", name, d, src)
	}
}

// nullAtEnd moves a null that goccy placed past the end of the file's last
// line one column left: goccy puts the null of a "key:" or "-" that ends the
// file two columns after the indicator, though one column after it
// everywhere else, and the parser places both alike.
func nullAtEnd(n *node, src []byte, lineOffset int) {
	lines := strings.Split(strings.TrimRight(string(src), " \t\r\n"), "\n")
	last := len(lines) + lineOffset
	text, _, _ := strings.Cut(lines[len(lines)-1], " #")
	width := utf8.RuneCountInString(strings.TrimRight(text, " \t\r"))
	var walk func(*node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		switch n.kind {
		case mapNode:
			for _, e := range n.entries {
				walk(e.value)
			}
		case seqNode:
			for _, it := range n.items {
				walk(it)
			}
		default:
			if n.value == nil && n.pos.Line == last && n.pos.Column > width+1 {
				n.pos.Column--
			}
		}
	}
	walk(n)
}

// subsetCode reports whether code is a refusal of the subset itself, whose
// position is part of the contract (syntax errors are worded and placed by
// each parser its own way).
func subsetCode(code string) bool {
	switch code {
	case CodeYAMLAnchorRefused, CodeYAMLAliasRefused, CodeYAMLMergeKeyRefused, CodeYAMLTagRefused,
		CodeYAMLMultipleDocuments, CodeYAMLDuplicateKey:
		return true
	}
	return false
}

func TestYAMLParserMatchesGoccyOnCorpus(t *testing.T) {
	for _, doc := range yamlCorpus(t) {
		checkAgainstGoccy(t, doc.name, doc.src, doc.lineOffset, true)
	}
}

func TestYAMLParserMatchesGoccyOnGeneratedDocuments(t *testing.T) {
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
		// goccy miscounts columns on the lines after an escaped line break
		// in a double-quoted string, so there only values are compared.
		checkAgainstGoccy(t, name, []byte(src), 0, !strings.Contains(src, "\\\n"))
	}
}

// genSeed is 1 unless RUNX_YAML_SEED says otherwise, so a run can explore.
func genSeed() uint64 {
	var seed uint64 = 1
	fmt.Sscan(os.Getenv("RUNX_YAML_SEED"), &seed)
	return seed
}

// FuzzYAMLParser holds the parser to four properties on any bytes: it never
// panics; every failure is a typed refusal; it never accepts a document the
// reader it replaced refused for an anchor, alias, tag, merge key, duplicate
// key or second document; and where both accept a document, both read the
// same value. (Where only goccy accepts, the input is not YAML goccy read
// leniently; TestYAMLParserDivergesFromGoccy lists those forms.)
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
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("untyped failure %T: %v", err, err)
		}
		want, wantErr, panicked := goccyRead(src)
		switch {
		case panicked:
		case wantErr != nil && err == nil:
			// goccy also took "<<" inside a longer key ("a <<: b") for a
			// merge key: the parser must just have read no key "<<".
			mergeInside := CodeOf(wantErr) == CodeYAMLMergeKeyRefused && !hasKey(got, "<<")
			if subsetCode(CodeOf(wantErr)) && !markerLike(src) && !mergeInside {
				t.Fatalf("goccy refuses with %v, the parser accepts\n%q", wantErr, src)
			}
		case wantErr == nil && err == nil:
			d := diffNodes("", want, got, false)
			// goccy dropped and moved tabs in text and keys in several ways,
			// and even read a quoted key of tabs as text; with a tab in the
			// input, values are not compared.
			if d != "" && bytes.IndexByte(src, '\t') >= 0 {
				d = ""
			}
			// goccy dropped an escaped space ("\ ") that ends a line of a
			// double-quoted string with the unescaped blanks.
			if d != "" && escapedSpaceAtEnd.Match(src) {
				d = ""
			}
			// goccy collapsed runs of blank lines holding spaces inside
			// multi-line text; without those spaces, both must agree.
			if d != "" && agreeWithout(blankLinesEmptied(src), got) {
				d = ""
			}
			// goccy dropped the trailing blanks of a file's last line when no
			// line break follows it, even in a literal block.
			if d != "" && !bytes.HasSuffix(src, []byte("\n")) && agreeWithout(append(bytes.Clone(src), '\n'), nil) {
				d = ""
			}
			// goccy nested the keys after an empty item of a list at its
			// key's indentation into that item.
			if d != "" && emptyItem.Match(src) {
				d = ""
			}
			// goccy dropped the trailing blanks of a block scalar's last
			// line, and read an empty block with keep chomping ("|+") as one
			// line break; where there is a block scalar, only its text may
			// differ.
			if d != "" && blockHeader.Match(src) && diffNodes("", withoutText(want), withoutText(got), false) == "" {
				d = ""
			}
			// goccy kept a colon before a flow indicator in the text
			// ("[a:]"); YAML reads it as a key's colon.
			if d != "" && colonBeforeIndicator.Match(src) {
				d = ""
			}
			// goccy took "---x" and "...x" at a line's start for document
			// markers; YAML reads them as text.
			if d != "" && markerLike(src) {
				d = ""
			}
			// goccy kept line breaks (and comments) in multi-line text after a
			// line starting with a dash; YAML folds them all. Where it did,
			// the readings must differ in text only.
			if d != "" && dashLine.Match(src) && diffNodes("", withoutText(want), withoutText(got), false) == "" {
				d = ""
			}
			if d != "" {
				t.Fatalf("goccy vs parser differ at %s\n%q", d, src)
			}
		}
	})
}

// goccyRead runs the old reader, which can panic on some inputs.
func goccyRead(src []byte) (n *node, err error, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	n, err = goccyParseStrict("f.yaml", src, 0)
	return n, err, false
}

// blankLinesEmptied removes the spaces and tabs of lines holding nothing
// else (and writes every line break as \n).
func blankLinesEmptied(src []byte) []byte {
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	lines := bytes.Split(bytes.ReplaceAll(src, []byte("\r"), []byte("\n")), []byte("\n"))
	for i, l := range lines {
		if len(bytes.Trim(l, " \t\r")) == 0 {
			lines[i] = nil
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// agreeWithout reports whether both readers read the same value from src, a
// normalized form of a fuzz input; got, when set, is the parser's reading of
// the original, which the normalization must not have changed.
func agreeWithout(src []byte, got *node) bool {
	want, err, panicked := goccyRead(src)
	if err != nil || panicked {
		return false
	}
	if got == nil {
		if got, err = parseStrict("f.yaml", src, 0); err != nil {
			return false
		}
	}
	return diffNodes("", want, got, false) == ""
}

// markerLike reports whether a line starts with --- or ... and more text.
func markerLike(src []byte) bool {
	src = bytes.ReplaceAll(src, []byte("\r"), []byte("\n"))
	for _, l := range bytes.Split(src, []byte("\n")) {
		if (bytes.HasPrefix(l, []byte("---")) || bytes.HasPrefix(l, []byte("..."))) && len(bytes.TrimRight(l, " \t\r")) > 3 {
			return true
		}
	}
	return false
}

var (
	dashLine             = regexp.MustCompile(`(^|[\r\n])[ \t]*-`)
	colonBeforeIndicator = regexp.MustCompile(`:[,\]}]`)
	blockHeader          = regexp.MustCompile(`[|>]`)
	escapedSpaceAtEnd    = regexp.MustCompile(`\\ [ \t]*[\r\n]`)
	emptyItem            = regexp.MustCompile(`(^|[\r\n])[ \t]*-[ \t]*(#[^\r\n]*)?([\r\n]|$)`)
)

// withoutText copies a tree with every string emptied.
func withoutText(n *node) *node {
	return copyTree(n, func(v any) any {
		if _, ok := v.(string); ok {
			return ""
		}
		return v
	})
}

func copyTree(n *node, scalar func(any) any) *node {
	if n == nil {
		return nil
	}
	c := *n
	switch n.kind {
	case mapNode:
		c.entries = make([]entry, len(n.entries))
		for i, e := range n.entries {
			e.value = copyTree(e.value, scalar)
			c.entries[i] = e
		}
	case seqNode:
		c.items = make([]*node, len(n.items))
		for i, it := range n.items {
			c.items[i] = copyTree(it, scalar)
		}
	default:
		c.value = scalar(n.value)
	}
	return &c
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
		wantValue, jerr := decodeJSONValue(want)
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
