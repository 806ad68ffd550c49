package pkg

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/sdk/errcode"
)

// run.yaml, tests/*.yaml and SKILL.md front matter are read with
// goccy/go-yaml's parser (docs/decisions/dependencies.md), whose AST is
// converted here into the nodes the decoder walks, under the strict subset:
// every refusal names the file, line and column of what it refuses. The subset exists so a file means
// exactly what it shows: no anchors, aliases, merge keys or tags (which make
// one value stand for another), one document, and no duplicate keys (which
// different parsers resolve differently).

// yamlDoc is a parsed file whose subset check has not run yet, so a caller
// can peek at a field (minimum_runx) before a refusal of the rest.
type yamlDoc struct {
	f *ast.File
	c converter
}

// parseStrict parses src under the subset and returns the body of its one
// document (nil when the file holds nothing). lineOffset shifts reported
// lines when src is embedded in a larger file (SKILL.md front matter).
func parseStrict(file string, src []byte, lineOffset int) (*node, error) {
	doc, err := parseYAML(file, src, lineOffset)
	if err != nil {
		return nil, err
	}
	return doc.body()
}

// parseYAML checks only that src is UTF-8 YAML; the subset is enforced by
// body.
func parseYAML(file string, src []byte, lineOffset int) (yamlDoc, error) {
	c := converter{file: file, lineOffset: lineOffset}
	if len(src) > MaxYAMLBytes {
		return yamlDoc{}, refuseAt(file, Position{}, errcode.PackageFileTooLarge,
			"the YAML is %d bytes, over the %d byte ceiling on a package's YAML (MaxYAMLBytes); move large content into a file the package reads", len(src), MaxYAMLBytes)
	}
	if !utf8.Valid(src) {
		return yamlDoc{}, refuseAt(file, Position{}, errcode.RunxYAMLInvalid, "the file is not valid UTF-8")
	}
	if err := checkCharacters(file, src, lineOffset); err != nil {
		return yamlDoc{}, err
	}
	// A leading byte order mark is not part of the first key.
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	// goccy drops the final line break of a block scalar that ends the file
	// without one; YAML keeps it, and a file means the same with or without
	// its last line break.
	if len(src) > 0 && src[len(src)-1] != '\n' && src[len(src)-1] != '\r' {
		src = append(bytes.Clone(src), '\n')
	}
	tokens, err := tokenize(src)
	if err != nil {
		return yamlDoc{}, goccySyntaxError(file, lineOffset, err)
	}
	if err := c.checkShape(tokens); err != nil {
		return yamlDoc{}, err
	}
	f, err := parseTokens(tokens)
	if err != nil {
		return yamlDoc{}, goccySyntaxError(file, lineOffset, err)
	}
	return yamlDoc{f: f, c: c}, nil
}

// errParserPanicked stands for a panic inside goccy's parser, which some
// malformed inputs cause: the file is refused as invalid, never trusted.
var errParserPanicked = errors.New("the YAML parser could not read this file")

// tokenize and parseTokens are parser.ParseBytes in two halves, so the
// tokens can be checked (checkShape) before the parser builds a tree.
func tokenize(src []byte) (tokens token.Tokens, err error) {
	defer func() {
		if recover() != nil {
			tokens, err = nil, errParserPanicked
		}
	}()
	return lexer.Tokenize(string(src)), nil
}

func parseTokens(tokens token.Tokens) (f *ast.File, err error) {
	defer func() {
		if recover() != nil {
			f, err = nil, errParserPanicked
		}
	}()
	return parser.Parse(tokens, 0, parser.AllowDuplicateMapKey())
}

// body returns the document under the strict subset.
func (d yamlDoc) body() (*node, error) { return d.c.document(d.f) }

// peekString finds a top-level field before the subset is applied, for
// fields that must be read before anything else (minimum_runx). A value that
// is not a string is returned as text no version parses, so it is refused as
// invalid, as it would be once decoded.
func (d yamlDoc) peekString(key string) (string, Position, bool) {
	return d.c.peekString(d.f, key)
}

// checkCharacters refuses control characters, which YAML does not allow in
// a document and which a reader could not see.
func checkCharacters(file string, src []byte, lineOffset int) error {
	line, col := 1, 1
	for _, r := range string(src) {
		switch {
		case r == '\n':
			line, col = line+1, 1
			continue
		case r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0 && r != 0x85) || r == 0xfffe || r == 0xffff:
			return refuseAt(file, Position{Line: line + lineOffset, Column: col}, errcode.RunxYAMLInvalid,
				"control character U+%04X is not allowed in a YAML file", r)
		case r == 0xfeff && (line != 1 || col != 1):
			return refuseAt(file, Position{Line: line + lineOffset, Column: col}, errcode.RunxYAMLInvalid,
				"a byte order mark is allowed only at the start of the file")
		}
		col++
	}
	return nil
}

// document returns the body of f's one document under the strict subset
// (nil when the file holds nothing).
func (c converter) document(f *ast.File) (*node, error) {
	// Directives are checked before the document count because goccy reports
	// a directive as a document of its own.
	for _, d := range f.Docs {
		if dir, ok := d.Body.(*ast.DirectiveNode); ok {
			return nil, c.refuse(dir, errcode.RunxYAMLInvalid, "YAML directives (%%%s) are not part of the runx YAML subset", dir.Name.GetToken().Value)
		}
	}
	if len(f.Docs) > 1 {
		second := f.Docs[1]
		var pos Position
		if second.Start != nil {
			pos = c.tokenPos(second.Start)
		} else if second.Body != nil {
			pos = c.startPos(second.Body)
		}
		return nil, refuseAt(c.file, pos, errcode.RunxYAMLMultipleDocuments, "a runx file holds exactly one YAML document; remove the document separator")
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return nil, nil
	}
	return c.convert(f.Docs[0].Body, 0)
}

// peekString finds a top-level string field in the first document without
// applying the subset.
func (c converter) peekString(f *ast.File, key string) (string, Position, bool) {
	if f == nil || len(f.Docs) == 0 {
		return "", Position{}, false
	}
	var pairs []*ast.MappingValueNode
	switch body := f.Docs[0].Body.(type) {
	case *ast.MappingNode:
		pairs = body.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{body}
	}
	for _, p := range pairs {
		k, ok := p.Key.(*ast.StringNode)
		if !ok || k.Value != key {
			continue
		}
		if v, ok := p.Value.(*ast.StringNode); ok {
			return v.Value, c.pos(v), true
		}
		if p.Value == nil {
			return "(null)", c.pos(p.Key), true
		}
		return "(" + p.Value.Type().String() + ")", c.pos(p.Value), true
	}
	return "", Position{}, false
}

func goccySyntaxError(file string, lineOffset int, err error) error {
	var se *yaml.SyntaxError
	if errors.As(err, &se) && se.Token != nil {
		return &Error{Code: errcode.RunxYAMLInvalid, Message: se.Message, File: file,
			Line: se.Token.Position.Line + lineOffset, Column: se.Token.Position.Column}
	}
	return &Error{Code: errcode.RunxYAMLInvalid, Message: err.Error(), File: file}
}

type converter struct {
	file       string
	lineOffset int
}

func (c converter) tokenPos(tk *token.Token) Position {
	if tk == nil || tk.Position == nil {
		return Position{}
	}
	return Position{Line: tk.Position.Line + c.lineOffset, Column: tk.Position.Column}
}

func (c converter) pos(n ast.Node) Position { return c.tokenPos(n.GetToken()) }

// startPos is where a node starts for a reader: a block mapping's first key
// rather than its first colon, which is goccy's token for it.
func (c converter) startPos(n ast.Node) Position {
	switch n := n.(type) {
	case *ast.MappingNode:
		if !n.IsFlowStyle && len(n.Values) > 0 {
			return c.pos(n.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return c.pos(n.Key)
	}
	return c.pos(n)
}

// checkIndent refuses a value written on a later line than its key or dash
// but not indented under it, which YAML does not allow and goccy reads as
// belonging to the nearest collection (an empty "-" swallowing the keys
// after it): a file must mean what its layout shows. A list may sit at its
// key's own indentation (sameColumn).
func (c converter) checkIndent(at Position, v ast.Node, sameColumn bool, what string) error {
	pos := c.startPos(v)
	if pos.Line <= at.Line || pos.Line == 0 {
		return nil
	}
	if pos.Column > at.Column || (sameColumn && pos.Column == at.Column) {
		return nil
	}
	return refuseAt(c.file, pos, errcode.RunxYAMLInvalid,
		"this value is not indented under its %s at line %d, column %d; indent it, or write null", what, at.Line, at.Column)
}

func (c converter) refuse(n ast.Node, code errcode.Code, format string, args ...any) *Error {
	return refuseAt(c.file, c.pos(n), code, format, args...)
}

func (c converter) convert(n ast.Node, depth int) (*node, error) {
	if depth > maxYAMLDepth {
		return nil, c.refuse(n, errcode.RunxYAMLInvalid, "values nest deeper than %d levels", maxYAMLDepth)
	}
	switch n := n.(type) {
	case *ast.AnchorNode:
		return nil, c.refuse(n, errcode.RunxYAMLAnchorRefused, "anchors (&%s) are not part of the runx YAML subset; write the value out", n.Name.GetToken().Value)
	case *ast.AliasNode:
		return nil, c.refuse(n, errcode.RunxYAMLAliasRefused, "aliases (*%s) are not part of the runx YAML subset; write the value out", n.Value.GetToken().Value)
	case *ast.TagNode:
		return nil, c.refuse(n, errcode.RunxYAMLTagRefused, "tags (%s) are not part of the runx YAML subset; a value's type comes from how it is written", n.Start.Value)
	case *ast.MergeKeyNode:
		return nil, c.refuse(n, errcode.RunxYAMLMergeKeyRefused, "merge keys (<<) are not part of the runx YAML subset; write the fields out")
	case *ast.MappingNode:
		m, err := c.mapping(n, n.Values, depth)
		if err == nil && n.IsFlowStyle {
			m.pos = c.tokenPos(n.Start) // the opening brace
		}
		return m, err
	case *ast.MappingValueNode:
		return c.mapping(n, []*ast.MappingValueNode{n}, depth)
	case *ast.SequenceNode:
		out := &node{kind: seqNode, pos: c.pos(n), items: make([]*node, 0, len(n.Values))}
		for i, v := range n.Values {
			if !n.IsFlowStyle && i < len(n.Entries) && n.Entries[i].Start != nil {
				if err := c.checkIndent(c.tokenPos(n.Entries[i].Start), v, false, "list item"); err != nil {
					return nil, err
				}
			}
			item, err := c.convert(v, depth+1)
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, item)
		}
		return out, nil
	}
	return c.scalar(n)
}

func (c converter) mapping(at ast.Node, pairs []*ast.MappingValueNode, depth int) (*node, error) {
	out := &node{kind: mapNode, pos: c.pos(at), entries: make([]entry, 0, len(pairs))}
	if len(pairs) > 0 {
		// A block mapping's own token is its first colon; its first key is
		// where a reader's eye lands (a flow mapping is moved to its brace).
		out.pos = c.pos(pairs[0].Key)
	}
	seen := make(map[string]Position, len(pairs))
	for _, p := range pairs {
		key, keyPos, err := c.key(p.Key)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[key]; dup {
			return nil, refuseAt(c.file, keyPos, errcode.RunxYAMLDuplicateKey, "key %q is defined twice (first at line %d, column %d)", key, first.Line, first.Column)
		}
		seen[key] = keyPos
		if !p.IsFlowStyle && p.Value != nil {
			_, isList := p.Value.(*ast.SequenceNode)
			if err := c.checkIndent(keyPos, p.Value, isList, "key"); err != nil {
				return nil, err
			}
		}
		var value *node
		if p.Value == nil {
			value = &node{kind: scalarNode, pos: keyPos}
		} else if value, err = c.convert(p.Value, depth+1); err != nil {
			return nil, err
		}
		out.entries = append(out.entries, entry{key: key, keyPos: keyPos, value: value})
	}
	return out, nil
}

// key returns a mapping key as text. Keys are names, so a scalar key keeps
// the text it was written with (200 stays "200", not a number).
func (c converter) key(k ast.MapKeyNode) (string, Position, error) {
	pos := c.pos(k)
	switch k := k.(type) {
	case *ast.MergeKeyNode:
		return "", pos, c.refuse(k, errcode.RunxYAMLMergeKeyRefused, "merge keys (<<) are not part of the runx YAML subset; write the fields out")
	case *ast.StringNode:
		return k.Value, pos, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return k.GetToken().Value, pos, nil
	case *ast.MappingKeyNode:
		return "", pos, c.refuse(k, errcode.RunxYAMLInvalid, "explicit keys (?) are not part of the runx YAML subset")
	}
	// Anchors, aliases and tags on keys get their own codes from convert.
	if _, err := c.convert(k, maxYAMLDepth); err != nil {
		return "", pos, err
	}
	return "", pos, c.refuse(k, errcode.RunxYAMLInvalid, "a mapping key must be a plain name")
}

func (c converter) scalar(n ast.Node) (*node, error) {
	out := &node{kind: scalarNode, pos: c.pos(n)}
	switch n := n.(type) {
	case *ast.NullNode:
		return out, nil
	case *ast.BoolNode:
		out.value = n.Value
		return out, nil
	case *ast.LiteralNode:
		out.value = n.Value.Value
		return out, nil
	case *ast.StringNode:
		out.value = n.Value
		// goccy reads an unquoted number it cannot hold in an int64 (or one
		// with an exponent) as a string; YAML means it as a number, so it is
		// read as one and refused if it cannot be held exactly.
		if n.Token.Type == token.StringType && jsonvalue.LooksLikeNumber(n.Value) {
			v, err := jsonvalue.FromNumberText(strings.TrimPrefix(n.Value, "+"))
			if err != nil {
				return nil, c.refuse(n, errcode.RunxYAMLInvalid, "%v; quote it to pass a string", err)
			}
			out.value = v
		}
		return out, nil
	case *ast.IntegerNode:
		text := strings.TrimPrefix(n.Token.Value, "+")
		if !jsonvalue.IsDecimalInteger(text) {
			return nil, c.refuse(n, errcode.RunxYAMLInvalid, "write integers in decimal (%s is read differently by YAML 1.1 and 1.2); quote it to pass a string", n.Token.Value)
		}
		v, err := jsonvalue.FromNumberText(text)
		if err != nil {
			return nil, c.refuse(n, errcode.RunxYAMLInvalid, "%v; quote it to pass a string", err)
		}
		out.value = v
		return out, nil
	case *ast.FloatNode:
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Token.Value, "_", ""), 64)
		if err != nil {
			return nil, c.refuse(n, errcode.RunxYAMLInvalid, "%s is not a number JSON can hold", n.Token.Value)
		}
		out.value = f
		return out, nil
	case *ast.InfinityNode, *ast.NanNode:
		return nil, c.refuse(n, errcode.RunxYAMLInvalid, "%s is not a number JSON can hold", n.GetToken().Value)
	}
	return nil, c.refuse(n, errcode.RunxYAMLInvalid, "unsupported YAML node %s", fmt.Sprint(n.Type()))
}
