package pkg

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// yamlParser reads runx's YAML subset straight into nodes, in one pass and
// without a token stream or a syntax tree in between (see docs/decisions.md:
// the general parser it replaces spent most of planning building an AST).
//
// What it reads: block mappings and sequences, flow mappings and sequences,
// plain, single- and double-quoted scalars, literal and folded block scalars,
// and comments. Anchors, aliases, tags, merge keys, duplicate keys, directives
// and further documents are recognized so they can be refused with their own
// codes; explicit keys (?) and complex keys are refused as syntax.
//
// A subset refusal does not stop the parse: the first one is kept and
// reported by yamlDoc.body, after the caller has had a chance to peek at
// minimum_runx, and a syntax error anywhere in the file still wins over it.
// Every node parse starts at its first character and ends at the start of a
// line (or the end of the input), so callers never track partial lines.
type yamlParser struct {
	file       string
	s          string // the source; scalar values are substrings of it
	lineOffset int
	ascii      bool // columns are byte offsets when the source is all ASCII

	off       int // next byte to read
	line      int // 1-based line of off
	lineStart int // offset of the first byte of off's line

	refusal    *Error   // the first subset refusal in source order
	blockLines []string // reused by blockScalar
	flowMaps   int      // flow mappings open around off

	// See yamlalloc.go.
	nodeBlock  []node
	entryBlock []entry
	itemBlock  []*node
	entryStack []entry
	itemStack  []*node
}

// yamlDoc is a parsed file: the body of its one document (nil when it holds
// nothing) and the subset refusal to report, if any.
type yamlDoc struct {
	root    *node
	refusal *Error
}

// body returns the document under the strict subset.
func (d yamlDoc) body() (*node, error) {
	if d.refusal != nil {
		return nil, d.refusal
	}
	return d.root, nil
}

// peekString finds a top-level field before the subset is applied, for
// fields that must be read before anything else (minimum_runx). A value that
// is not a string is returned as text no version parses, so it is refused as
// invalid, as it would be once decoded.
func (d yamlDoc) peekString(key string) (string, Position, bool) {
	if d.root == nil || d.root.kind != mapNode {
		return "", Position{}, false
	}
	for _, e := range d.root.entries {
		if e.key != key {
			continue
		}
		if s, ok := e.value.value.(string); ok && e.value.kind == scalarNode {
			return s, e.value.pos, true
		}
		return "(" + e.value.describe() + ")", e.value.pos, true
	}
	return "", Position{}, false
}

// nodeContext says what precedes a node on its line, which decides what the
// node may be.
type nodeContext uint8

const (
	ctxLineStart nodeContext = iota // first on its line (or after ---)
	ctxAfterKey                     // after "key:": no block collection may start here
	ctxAfterDash                    // after "- ": a compact mapping or sequence may
)

func (p *yamlParser) parseStream() (yamlDoc, error) {
	p.line = 1
	if strings.HasPrefix(p.s, "\ufeff") {
		p.off, p.lineStart = 3, 3
	}
	if err := p.checkCharacters(); err != nil {
		return yamlDoc{}, err
	}
	var (
		doc       yamlDoc
		directive *Error
		second    *Error // where a second document starts
		docs      int    // documents begun
		open      bool   // the current document may still take a body
		bodyDone  bool   // the current document has its body
	)
	for {
		indent, ok, err := p.skipBlank()
		if err != nil {
			return yamlDoc{}, err
		}
		if !ok {
			break
		}
		start := p.lineStart + indent
		pos := p.posAt(start)
		if indent == 0 && p.s[start] == '%' {
			if directive == nil {
				name, _, _ := strings.Cut(p.s[start+1:p.lineEnd()], " ")
				directive = refuseAt(p.file, pos, CodeYAMLInvalid, "YAML directives (%%%s) are not part of the runx YAML subset", name)
			}
			p.off = p.lineEnd()
			p.nextLine()
			continue
		}
		if indent == 0 && p.atMarker(start, "...") {
			p.off = start + 3
			if err := p.endLine(); err != nil {
				return yamlDoc{}, err
			}
			open = false
			continue
		}
		explicit := indent == 0 && p.atMarker(start, "---")
		if !explicit && open && bodyDone {
			return yamlDoc{}, p.failAt(pos, "unexpected content after the document's value; check its indentation")
		}
		if explicit || !open {
			if docs > 0 && second == nil {
				second = refuseAt(p.file, pos, CodeYAMLMultipleDocuments, "a runx file holds exactly one YAML document; remove the document separator")
			}
			docs++
			open, bodyDone = true, false
		}
		p.off = start
		if explicit {
			p.off += 3
			p.skipSpace()
			if p.atLineEnd() || p.cur() == '#' {
				if err := p.endLine(); err != nil {
					return yamlDoc{}, err
				}
				continue
			}
		}
		body, err := p.parseNode(-1, ctxLineStart, 0)
		if err != nil {
			return yamlDoc{}, err
		}
		bodyDone = true
		if docs == 1 {
			doc.root = body
		}
	}
	switch {
	case directive != nil:
		doc.refusal = directive
	case second != nil:
		doc.refusal = second
	default:
		doc.refusal = p.refusal
	}
	return doc, nil
}

// parseNode parses the node whose first character is at off, inside a block
// whose indentation is n (-1 at the top level). A block collection starting
// here takes the column it starts at as its indentation.
func (p *yamlParser) parseNode(n int, ctx nodeContext, depth int) (*node, error) {
	if depth > maxYAMLDepth {
		return nil, p.failAt(p.pos(), "values nest deeper than %d levels", maxYAMLDepth)
	}
	// A block collection's indentation is where its first node starts,
	// properties included.
	indent := p.column(p.off) - 1
	for {
		c := p.cur()
		if c != '&' && c != '!' {
			break
		}
		// A node property: refused, then read past so the rest of the file
		// is still checked for syntax.
		p.property()
		p.skipSpace()
		if p.atLineEnd() || p.cur() == '#' {
			pos := p.pos()
			if err := p.endLine(); err != nil {
				return nil, err
			}
			return p.nextLinesValue(n, ctx == ctxAfterKey, pos, depth)
		}
	}
	pos := p.pos()
	c := p.cur()
	switch {
	case c == '-' && p.blankAt(p.off+1):
		if ctx == ctxAfterKey {
			return nil, p.failAt(pos, "a list cannot start on the line of its key; put each item on its own line, indented under the key")
		}
		return p.blockSeq(indent, depth)
	case c == '?' && p.blankAt(p.off+1):
		return nil, p.failAt(pos, "explicit keys (?) are not part of the runx YAML subset")
	case c == '|' || c == '>':
		return p.blockScalar(n, pos)
	case c == '[' || c == '{':
		v, err := p.flowCollection(n, depth)
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.cur() == ':' {
			return nil, p.failAt(pos, "a mapping key must be a plain name")
		}
		return v, p.endLine()
	case c == '"' || c == '\'':
		line := p.line
		s, err := p.quoted(pos)
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.cur() == ':' && p.blankAt(p.off+1) {
			if ctx == ctxAfterKey {
				return nil, p.failAt(pos, "a mapping cannot start on the line of its key; put its fields on their own lines, indented under the key")
			}
			if p.line != line {
				return nil, p.failAt(pos, "a key must be written on one line")
			}
			return p.blockMap(indent, s, pos, false, depth)
		}
		return p.newNode(scalarNode, pos, s), p.endLine()
	case c == '*':
		p.alias()
	}
	if err := p.checkPlainStart(pos, false); err != nil {
		return nil, err
	}
	start := p.off
	end := p.scanPlain(false, false)
	if p.cur() == ':' {
		if ctx == ctxAfterKey {
			return nil, p.failAt(pos, "a mapping cannot start on the line of its key; put its fields on their own lines, indented under the key")
		}
		return p.blockMap(indent, p.s[start:end], pos, true, depth)
	}
	text := p.plainLines(start, end, n, false, false)
	if p.cur() == ':' {
		return nil, p.failAt(pos, "this value runs into a key (%s:) on line %d; a nested mapping goes on its own lines, under a key with nothing after its colon",
			strings.TrimSpace(p.s[p.lineStart:p.off]), p.line+p.lineOffset)
	}
	v, err := p.plainValue(text, pos)
	if err != nil {
		return nil, err
	}
	return p.newNode(scalarNode, pos, v), p.endLine()
}

// nextLinesValue reads a value that starts on a later line than its key or
// dash: a node indented deeper than n, a list at n itself when it is a
// mapping's value (compact lists), or nothing, which is null at nullPos.
func (p *yamlParser) nextLinesValue(n int, compactList bool, nullPos Position, depth int) (*node, error) {
	indent, ok, err := p.skipBlank()
	if err != nil {
		return nil, err
	}
	if ok && !p.atDocumentMarker(indent) {
		start := p.lineStart + indent
		if indent > n || (compactList && indent == n && p.s[start] == '-' && p.blankAt(start+1)) {
			p.off = start
			return p.parseNode(n, ctxLineStart, depth)
		}
	}
	return p.newNode(scalarNode, nullPos, nil), nil
}

// blockMap reads a block mapping at indentation m whose first key has been
// read (off is at its colon).
func (p *yamlParser) blockMap(m int, key string, keyPos Position, plainKey bool, depth int) (*node, error) {
	out := p.newNode(mapNode, keyPos, nil)
	keys := p.openMapping()
	for {
		p.checkKey(&keys, key, keyPos, plainKey)
		colon := p.off
		p.off++
		p.skipSpace()
		var value *node
		var err error
		if p.atLineEnd() || p.cur() == '#' {
			nullPos := p.posAt(colon + 1)
			if err = p.endLine(); err != nil {
				return nil, err
			}
			value, err = p.nextLinesValue(m, true, nullPos, depth+1)
		} else {
			value, err = p.parseNode(m, ctxAfterKey, depth+1)
		}
		if err != nil {
			return nil, err
		}
		p.addEntry(entry{key: key, keyPos: keyPos, value: value})

		indent, ok, err := p.skipBlank()
		if err != nil {
			return nil, err
		}
		if !ok || indent < m || p.atDocumentMarker(indent) {
			out.entries = p.closeMapping(keys)
			return out, nil
		}
		p.off = p.lineStart + indent
		if indent > m {
			return nil, p.failAt(p.pos(), "this line is indented deeper than the keys above it but belongs to no key; align it with them or nest it under a key with nothing after its colon")
		}
		if key, keyPos, plainKey, err = p.blockKey(); err != nil {
			return nil, err
		}
	}
}

// blockKey reads the key of a block mapping entry, leaving off at its colon.
func (p *yamlParser) blockKey() (string, Position, bool, error) {
	for p.cur() == '&' || p.cur() == '!' {
		p.property()
		p.skipSpace()
	}
	pos := p.pos()
	c := p.cur()
	switch {
	case p.atLineEnd() || c == '#':
		return "", pos, false, p.failAt(pos, "expected a key followed by a colon")
	case c == '-' && p.blankAt(p.off+1):
		return "", pos, false, p.failAt(pos, "a list item where a key was expected; indent the list under its key")
	case c == '?' && p.blankAt(p.off+1):
		return "", pos, false, p.failAt(pos, "explicit keys (?) are not part of the runx YAML subset")
	case c == '[' || c == '{':
		return "", pos, false, p.failAt(pos, "expected a key followed by a colon; a value must be indented under its key, and a list or mapping cannot be a key")
	case c == '"' || c == '\'':
		line := p.line
		s, err := p.quoted(pos)
		if err != nil {
			return "", pos, false, err
		}
		p.skipSpace()
		if p.cur() != ':' || !p.blankAt(p.off+1) {
			return "", pos, false, p.failAt(pos, "expected a key followed by a colon")
		}
		if p.line != line {
			return "", pos, false, p.failAt(pos, "a key must be written on one line")
		}
		return s, pos, false, nil
	case c == '*':
		p.alias()
	}
	if err := p.checkPlainStart(pos, false); err != nil {
		return "", pos, false, err
	}
	start := p.off
	end := p.scanPlain(false, false)
	if p.cur() != ':' {
		return "", pos, false, p.failAt(pos, "expected a key followed by a colon; a value must be indented under its key")
	}
	return p.s[start:end], pos, true, nil
}

// checkKey records the subset refusals a key can carry: a merge key, a key
// that is not a name, or a key already in the mapping.
func (p *yamlParser) checkKey(keys *keySet, key string, pos Position, plain bool) {
	if plain {
		switch key {
		case "<<":
			p.refuseLater(pos, CodeYAMLMergeKeyRefused, "merge keys (<<) are not part of the runx YAML subset; write the fields out")
			return
		case "null", "Null", "NULL", "~":
			p.refuseLater(pos, CodeYAMLInvalid, "a mapping key must be a plain name")
			return
		case ".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
			p.refuseLater(pos, CodeYAMLInvalid, "%s is not a number JSON can hold", key)
			return
		}
	}
	if first := p.find(keys, key); first != nil {
		p.refuseLater(pos, CodeYAMLDuplicateKey, "key %q is defined twice (first at line %d, column %d)", key, first.keyPos.Line, first.keyPos.Column)
	}
}

// blockSeq reads a block sequence whose dashes sit at indentation m.
func (p *yamlParser) blockSeq(m int, depth int) (*node, error) {
	out := p.newNode(seqNode, p.pos(), nil)
	items := p.openSequence()
	for {
		dash := p.off
		p.off++
		p.skipSpace()
		var item *node
		var err error
		if p.atLineEnd() || p.cur() == '#' {
			nullPos := p.posAt(dash + 1)
			if err = p.endLine(); err != nil {
				return nil, err
			}
			item, err = p.nextLinesValue(m, false, nullPos, depth+1)
		} else {
			item, err = p.parseNode(m, ctxAfterDash, depth+1)
		}
		if err != nil {
			return nil, err
		}
		p.addItem(item)

		indent, ok, err := p.skipBlank()
		if err != nil {
			return nil, err
		}
		if !ok || indent < m || p.atDocumentMarker(indent) {
			out.items = p.closeSequence(items)
			return out, nil
		}
		start := p.lineStart + indent
		if indent > m {
			p.off = start
			return nil, p.failAt(p.pos(), "this line is indented deeper than the list items above it but belongs to none; align it with the dashes or nest it under an item")
		}
		if p.s[start] != '-' || !p.blankAt(start+1) {
			// The line belongs to the mapping this list is the value of.
			out.items = p.closeSequence(items)
			return out, nil
		}
		p.off = start
	}
}

// property reads past an anchor or a tag, refusing it.
func (p *yamlParser) property() {
	pos := p.pos()
	start := p.off
	for p.off < len(p.s) && !isBlankOrBreak(p.s[p.off]) && !isFlowIndicator(p.s[p.off]) {
		p.off++
	}
	if p.s[start] == '&' {
		p.refuseLater(pos, CodeYAMLAnchorRefused, "anchors (&%s) are not part of the runx YAML subset; write the value out", p.s[start+1:p.off])
	} else {
		p.refuseLater(pos, CodeYAMLTagRefused, "tags (%s) are not part of the runx YAML subset; a value's type comes from how it is written", p.s[start:p.off])
	}
}

// alias refuses an alias; the caller reads it on as a plain scalar.
func (p *yamlParser) alias() {
	end := p.off + 1
	for end < len(p.s) && !isBlankOrBreak(p.s[end]) && !isFlowIndicator(p.s[end]) {
		end++
	}
	p.refuseLater(p.pos(), CodeYAMLAliasRefused, "aliases (*%s) are not part of the runx YAML subset; write the value out", p.s[p.off+1:end])
}

func (p *yamlParser) refuseLater(pos Position, code, format string, args ...any) {
	if p.refusal == nil {
		p.refusal = refuseAt(p.file, pos, code, format, args...)
	}
}

func (p *yamlParser) failAt(pos Position, format string, args ...any) *Error {
	return refuseAt(p.file, pos, CodeYAMLInvalid, format, args...)
}

// checkCharacters refuses control characters YAML does not allow in a
// stream (C0 other than tab and line breaks, and DEL), and notes whether the
// source is ASCII so columns can be counted in bytes.
func (p *yamlParser) checkCharacters() error {
	p.ascii = true
	for i := 0; i < len(p.s); i++ {
		c := p.s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if c >= 0x80 {
			p.ascii = false
			continue
		}
		if c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		lineStart := strings.LastIndexByte(p.s[:i], '\n') + 1
		pos := Position{Line: strings.Count(p.s[:i], "\n") + 1 + p.lineOffset, Column: utf8.RuneCountInString(p.s[lineStart:i]) + 1}
		return refuseAt(p.file, pos, CodeYAMLInvalid,
			"control character %U is not allowed in YAML; write it as an escape in a double-quoted string", rune(c))
	}
	return nil
}

// Position bookkeeping.

func (p *yamlParser) column(off int) int {
	if p.ascii {
		return off - p.lineStart + 1
	}
	return utf8.RuneCountInString(p.s[p.lineStart:off]) + 1
}

// posAt is the position of off, which must be on the current line.
func (p *yamlParser) posAt(off int) Position {
	return Position{Line: p.line + p.lineOffset, Column: p.column(off)}
}

func (p *yamlParser) pos() Position { return p.posAt(p.off) }

// Reading primitives.

func (p *yamlParser) cur() byte {
	if p.off < len(p.s) {
		return p.s[p.off]
	}
	return 0
}

func (p *yamlParser) atLineEnd() bool {
	return p.off >= len(p.s) || p.s[p.off] == '\n' || p.s[p.off] == '\r'
}

// blankAt reports whether off holds a space, a tab, a line break or the end.
func (p *yamlParser) blankAt(off int) bool {
	return off >= len(p.s) || isBlankOrBreak(p.s[off])
}

func isBlankOrBreak(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isFlowIndicator(c byte) bool {
	return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'
}

func (p *yamlParser) skipSpace() {
	for p.off < len(p.s) && (p.s[p.off] == ' ' || p.s[p.off] == '\t') {
		p.off++
	}
}

// lineEnd is the offset of the current line's break (or the end).
func (p *yamlParser) lineEnd() int {
	i := p.off
	for i < len(p.s) && p.s[i] != '\n' && p.s[i] != '\r' {
		i++
	}
	return i
}

// nextLine moves past the line break at off.
func (p *yamlParser) nextLine() {
	if p.off < len(p.s) && p.s[p.off] == '\r' {
		p.off++
	}
	if p.off < len(p.s) && p.s[p.off] == '\n' {
		p.off++
	}
	p.line++
	p.lineStart = p.off
}

// endLine finishes a line after a value: spaces, then an optional comment,
// then the line break.
func (p *yamlParser) endLine() error {
	p.skipSpace()
	if p.cur() == '#' {
		if p.off > p.lineStart && p.s[p.off-1] != ' ' && p.s[p.off-1] != '\t' {
			return p.failAt(p.pos(), "a comment needs a space before its #")
		}
		p.off = p.lineEnd()
	}
	if !p.atLineEnd() {
		return p.failAt(p.pos(), "unexpected %s after the value; quote the value if it is meant to hold this", describeChar(p.s[p.off:]))
	}
	if p.off < len(p.s) {
		p.nextLine()
	}
	return nil
}

// skipBlank moves past empty and comment-only lines. off must be at the start
// of a line; it stays at the start of the next line with content, whose
// indentation (in spaces) it returns, or ok is false at the end of the input.
func (p *yamlParser) skipBlank() (indent int, ok bool, err error) {
	for p.off < len(p.s) {
		i := p.off
		for i < len(p.s) && p.s[i] == ' ' {
			i++
		}
		j := i
		for j < len(p.s) && (p.s[j] == '\t' || p.s[j] == ' ') {
			j++
		}
		if j < len(p.s) && p.s[j] != '\n' && p.s[j] != '\r' && p.s[j] != '#' {
			if j != i {
				p.off = i
				return 0, false, p.failAt(p.pos(), "a tab in indentation; YAML indents with spaces only")
			}
			return i - p.lineStart, true, nil
		}
		p.off = j
		p.off = p.lineEnd()
		if p.off >= len(p.s) {
			break
		}
		p.nextLine()
	}
	return 0, false, nil
}

// atMarker reports whether a document marker (--- or ...) starts at off, the
// start of a line.
func (p *yamlParser) atMarker(off int, marker string) bool {
	return strings.HasPrefix(p.s[off:], marker) && p.blankAt(off+3)
}

// atDocumentMarker reports whether the current line, with content at indent,
// starts with a document marker.
func (p *yamlParser) atDocumentMarker(indent int) bool {
	return indent == 0 && (p.atMarker(p.lineStart, "---") || p.atMarker(p.lineStart, "..."))
}

// describeChar names the character starting s for a message.
func describeChar(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	return fmt.Sprintf("%q", r)
}
