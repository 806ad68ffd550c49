package pkg

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// This file keeps the reader runx used before its own parser (yamlparse.go):
// goccy/go-yaml's AST converted under the strict subset. It is the oracle of
// the differential tests, which hold the new parser to the same values.

// goccyParseStrict is what parseStrict was.
func goccyParseStrict(file string, src []byte, lineOffset int) (*node, error) {
	f, c, err := goccyParseYAML(file, src, lineOffset)
	if err != nil {
		return nil, err
	}
	return c.document(f)
}

// goccyParseYAML checks only that src is UTF-8 YAML; the subset is enforced by
// document, so a caller can peek at a field (minimum_runx) in between.
func goccyParseYAML(file string, src []byte, lineOffset int) (*ast.File, converter, error) {
	c := converter{file: file, lineOffset: lineOffset}
	if !utf8.Valid(src) {
		return nil, c, refuseAt(file, Position{}, CodeYAMLInvalid, "the file is not valid UTF-8")
	}
	f, err := parser.ParseBytes(src, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		return nil, c, goccySyntaxError(file, lineOffset, err)
	}
	return f, c, nil
}

// document returns the body of f's one document under the strict subset
// (nil when the file holds nothing).
func (c converter) document(f *ast.File) (*node, error) {
	// Directives are checked before the document count because goccy reports
	// a directive as a document of its own.
	for _, d := range f.Docs {
		if dir, ok := d.Body.(*ast.DirectiveNode); ok {
			return nil, c.refuse(dir, CodeYAMLInvalid, "YAML directives (%%%s) are not part of the runx YAML subset", dir.Name.GetToken().Value)
		}
	}
	if len(f.Docs) > 1 {
		second := f.Docs[1]
		var pos Position
		if second.Start != nil {
			pos = c.tokenPos(second.Start)
		} else if second.Body != nil {
			pos = c.pos(second.Body)
		}
		return nil, refuseAt(c.file, pos, CodeYAMLMultipleDocuments, "a runx file holds exactly one YAML document; remove the document separator")
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return nil, nil
	}
	return c.convert(f.Docs[0].Body, 0)
}

// peekString finds a top-level string field in the first document without
// applying the subset, for fields that must be read before anything else.
func (c converter) peekString(f *ast.File, key string) (string, Position, bool) {
	if len(f.Docs) == 0 {
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
		if p.Value != nil {
			return p.Value.GetToken().Value, c.pos(p.Value), true
		}
	}
	return "", Position{}, false
}

func goccySyntaxError(file string, lineOffset int, err error) error {
	var se *yaml.SyntaxError
	if errors.As(err, &se) && se.Token != nil {
		return &Error{Code: CodeYAMLInvalid, Message: se.Message, File: file,
			Line: se.Token.Position.Line + lineOffset, Column: se.Token.Position.Column}
	}
	return &Error{Code: CodeYAMLInvalid, Message: err.Error(), File: file}
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

func (c converter) refuse(n ast.Node, code, format string, args ...any) *Error {
	return refuseAt(c.file, c.pos(n), code, format, args...)
}

func (c converter) convert(n ast.Node, depth int) (*node, error) {
	if depth > maxYAMLDepth {
		return nil, c.refuse(n, CodeYAMLInvalid, "values nest deeper than %d levels", maxYAMLDepth)
	}
	switch n := n.(type) {
	case *ast.AnchorNode:
		return nil, c.refuse(n, CodeYAMLAnchorRefused, "anchors (&%s) are not part of the runx YAML subset; write the value out", n.Name.GetToken().Value)
	case *ast.AliasNode:
		return nil, c.refuse(n, CodeYAMLAliasRefused, "aliases (*%s) are not part of the runx YAML subset; write the value out", n.Value.GetToken().Value)
	case *ast.TagNode:
		return nil, c.refuse(n, CodeYAMLTagRefused, "tags (%s) are not part of the runx YAML subset; a value's type comes from how it is written", n.Start.Value)
	case *ast.MergeKeyNode:
		return nil, c.refuse(n, CodeYAMLMergeKeyRefused, "merge keys (<<) are not part of the runx YAML subset; write the fields out")
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
		for _, v := range n.Values {
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
			return nil, refuseAt(c.file, keyPos, CodeYAMLDuplicateKey, "key %q is defined twice (first at line %d, column %d)", key, first.Line, first.Column)
		}
		seen[key] = keyPos
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
		return "", pos, c.refuse(k, CodeYAMLMergeKeyRefused, "merge keys (<<) are not part of the runx YAML subset; write the fields out")
	case *ast.StringNode:
		return k.Value, pos, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return k.GetToken().Value, pos, nil
	case *ast.MappingKeyNode:
		return "", pos, c.refuse(k, CodeYAMLInvalid, "explicit keys (?) are not part of the runx YAML subset")
	}
	// Anchors, aliases and tags on keys get their own codes from convert.
	if _, err := c.convert(k, maxYAMLDepth); err != nil {
		return "", pos, err
	}
	return "", pos, c.refuse(k, CodeYAMLInvalid, "a mapping key must be a plain name")
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
		if n.Token.Type == token.StringType && looksLikeJSONNumber(n.Value) {
			v, err := numberFromText(strings.TrimPrefix(n.Value, "+"))
			if err != nil {
				return nil, c.refuse(n, CodeYAMLInvalid, "%v; quote it to pass a string", err)
			}
			out.value = v
		}
		return out, nil
	case *ast.IntegerNode:
		text := strings.TrimPrefix(n.Token.Value, "+")
		if !isDecimalInteger(text) {
			return nil, c.refuse(n, CodeYAMLInvalid, "write integers in decimal (%s is read differently by YAML 1.1 and 1.2); quote it to pass a string", n.Token.Value)
		}
		v, err := numberFromText(text)
		if err != nil {
			return nil, c.refuse(n, CodeYAMLInvalid, "%v; quote it to pass a string", err)
		}
		out.value = v
		return out, nil
	case *ast.FloatNode:
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Token.Value, "_", ""), 64)
		if err != nil {
			return nil, c.refuse(n, CodeYAMLInvalid, "%s is not a number JSON can hold", n.Token.Value)
		}
		out.value = f
		return out, nil
	case *ast.InfinityNode, *ast.NanNode:
		return nil, c.refuse(n, CodeYAMLInvalid, "%s is not a number JSON can hold", n.GetToken().Value)
	}
	return nil, c.refuse(n, CodeYAMLInvalid, "unsupported YAML node %s", fmt.Sprint(n.Type()))
}
