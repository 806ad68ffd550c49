// Package registry reads sdk/errcode's declarations as source: the areas, each
// code's constant, spelling, meaning and what to do. The docs generator and
// the registry's tests share it; runx itself never imports it.
package registry

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Entry is one registered code.
type Entry struct {
	Name    string // the constant, e.g. ReceiptNotFound
	Code    string // its spelling, e.g. receipt_not_found
	Meaning string
	Do      string
	Pos     token.Position
}

// Area is one file of the registry: the codes of one concern.
type Area struct {
	Name        string // the file's base name, e.g. receipt
	Title       string
	Description string
	Entries     []Entry
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)+$|^[a-z][a-z0-9]*$`)

// Load parses the registry package in dir. Every Code constant must sit in
// an area file (not code.go), carry "Name: meaning" and "Do: what to do" in
// its doc comment, and be spelled in snake_case; no two constants may share
// a name or a spelling. Every problem is returned, not only the first.
func Load(dir string) ([]Area, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var areas []Area
	var problems []string
	byCode := map[string]string{}
	byName := map[string]bool{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		area := Area{Name: strings.TrimSuffix(filepath.Base(path), ".go")}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			if gd.Doc != nil && area.Title == "" {
				area.Title, area.Description, _ = strings.Cut(strings.Join(strings.Fields(gd.Doc.Text()), " "), ": ")
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
					continue
				}
				for i, n := range vs.Names {
					pos := fset.Position(n.Pos())
					e := Entry{Name: n.Name, Pos: pos}
					if i >= len(vs.Values) {
						problems = append(problems, fmt.Sprintf("%s: %s has no spelling", pos, n.Name))
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						problems = append(problems, fmt.Sprintf("%s: %s is not spelled as a string literal", pos, n.Name))
						continue
					}
					e.Code, _ = strconv.Unquote(lit.Value)
					e.Meaning, e.Do = describe(n.Name, vs.Doc)
					switch {
					case area.Name == "code":
						problems = append(problems, fmt.Sprintf("%s: %s is declared in code.go; declare it in the file of its area", pos, n.Name))
					case !snakeCase.MatchString(e.Code):
						problems = append(problems, fmt.Sprintf("%s: %s is spelled %q, not snake_case", pos, n.Name, e.Code))
					case e.Meaning == "":
						problems = append(problems, fmt.Sprintf("%s: %s's doc comment does not start %q with what the code means", pos, n.Name, n.Name+": "))
					case e.Do == "":
						problems = append(problems, fmt.Sprintf("%s: %s's doc comment has no \"Do: \" line saying what a person should do", pos, n.Name))
					}
					if prev, dup := byCode[e.Code]; dup {
						problems = append(problems, fmt.Sprintf("%s: %s and %s share the spelling %q", pos, prev, n.Name, e.Code))
					}
					if byName[n.Name] {
						problems = append(problems, fmt.Sprintf("%s: %s is declared twice", pos, n.Name))
					}
					byCode[e.Code], byName[n.Name] = n.Name, true
					area.Entries = append(area.Entries, e)
				}
			}
		}
		if len(area.Entries) == 0 {
			continue
		}
		if area.Title == "" || area.Description == "" {
			problems = append(problems, fmt.Sprintf("%s: the area's const block has no doc comment %q", path, "Title: what the area holds."))
		}
		sort.Slice(area.Entries, func(i, j int) bool { return area.Entries[i].Code < area.Entries[j].Code })
		areas = append(areas, area)
	}
	if len(problems) > 0 {
		return areas, fmt.Errorf("the registry is not well formed:\n%s", strings.Join(problems, "\n"))
	}
	return areas, nil
}

// describe splits a constant's doc comment into its meaning (after "Name: ")
// and what to do (after "Do: ").
func describe(name string, doc *ast.CommentGroup) (meaning, do string) {
	if doc == nil {
		return "", ""
	}
	text := strings.Join(strings.Fields(doc.Text()), " ")
	rest, ok := strings.CutPrefix(text, name+": ")
	if !ok {
		return "", ""
	}
	meaning, do, _ = strings.Cut(rest, " Do: ")
	return sentence(meaning), sentence(do)
}

func sentence(s string) string { return strings.TrimSpace(s) }

// Codes maps every registered spelling to its constant's name.
func Codes(areas []Area) map[string]string {
	m := map[string]string{}
	for _, a := range areas {
		for _, e := range a.Entries {
			m[e.Code] = e.Name
		}
	}
	return m
}

// Markdown renders docs/errors.md.
func Markdown(areas []Area) []byte {
	var b bytes.Buffer
	n := 0
	for _, a := range areas {
		n += len(a.Entries)
	}
	b.WriteString("# Error codes\n\n")
	b.WriteString("<!-- Generated from sdk/errcode by `go generate ./sdk/errcode`; do not edit. -->\n\n")
	fmt.Fprintf(&b, "Every refusal and failure runx reports carries one of these %d stable snake_case codes: in `--json`\n", n)
	b.WriteString("output, in a receipt's `error_code`, and on the plugin wire. A code is never renamed or reused.\n")
	b.WriteString("Each is declared once, in `sdk/errcode`, in the file of its area.\n\n")
	for _, a := range areas {
		fmt.Fprintf(&b, "- [%s](#%s) (%d)\n", a.Title, a.Name, len(a.Entries))
	}
	for _, a := range areas {
		fmt.Fprintf(&b, "\n<a id=\"%s\"></a>\n## %s\n\n%s Declared in `sdk/errcode/%s.go`.\n\n", a.Name, a.Title, a.Description, a.Name)
		b.WriteString("| Code | Meaning | What to do |\n|---|---|---|\n")
		for _, e := range a.Entries {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", e.Code, cell(e.Meaning), cell(e.Do))
		}
	}
	return b.Bytes()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
