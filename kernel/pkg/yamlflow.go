package pkg

// Flow collections: [a, b] and {k: v}, which may span lines. Lines inside
// them may sit at any indentation, as the parser runx used before allowed,
// but an unquoted value continues onto a later line only when that line is
// indented deeper than the block holding the collection.

// flowScalar is a scalar read in a flow collection before it is known to be
// a key (kept as written) or a value (given its JSON meaning).
type flowScalar struct {
	text  string
	pos   Position
	plain bool
}

// flowCollection reads the flow sequence or mapping whose bracket is at off,
// inside a block of indentation n, leaving off after its closing bracket.
func (p *yamlParser) flowCollection(n, depth int) (*node, error) {
	if p.cur() == '[' {
		return p.flowSeq(n, depth)
	}
	return p.flowMap(n, depth)
}

func (p *yamlParser) flowSeq(n, depth int) (*node, error) {
	open := p.pos()
	out := p.newNode(seqNode, open, nil)
	items := p.openSequence()
	p.off++
	for {
		if err := p.flowSpace(open, "list"); err != nil {
			return nil, err
		}
		if p.cur() == ']' {
			p.off++
			out.items = p.closeSequence(items)
			return out, nil
		}
		// In a list inside a flow mapping, goccy read "[a:b]" as [{a: b}].
		coll, sc, err := p.flowNode(n, depth+1, open, "list", p.flowMaps > 0)
		if err != nil {
			return nil, err
		}
		if err := p.flowSpace(open, "list"); err != nil {
			return nil, err
		}
		var item *node
		if p.cur() == ':' {
			// [k: v] is a list holding the one-entry mapping {k: v}.
			if coll != nil {
				return nil, p.failAt(coll.pos, "a mapping key must be a plain name")
			}
			pair := p.newNode(mapNode, sc.pos, nil)
			keys := p.openMapping()
			p.checkKey(&keys, sc.text, sc.pos, sc.plain)
			value, err := p.flowEntryValue(n, depth+2, open, "list", ']')
			if err != nil {
				return nil, err
			}
			p.addEntry(entry{key: sc.text, keyPos: sc.pos, value: value})
			pair.entries = p.closeMapping(keys)
			item = pair
		} else if item = coll; coll == nil {
			if item, err = p.scalarNode(sc); err != nil {
				return nil, err
			}
		}
		p.addItem(item)
		done, err := p.flowNext(open, "list", ']')
		if err != nil {
			return nil, err
		}
		if done {
			out.items = p.closeSequence(items)
			return out, nil
		}
	}
}

func (p *yamlParser) flowMap(n, depth int) (*node, error) {
	open := p.pos()
	out := p.newNode(mapNode, open, nil)
	keys := p.openMapping()
	p.off++
	p.flowMaps++
	defer func() { p.flowMaps-- }()
	for {
		if err := p.flowSpace(open, "mapping"); err != nil {
			return nil, err
		}
		if p.cur() == '}' {
			p.off++
			out.entries = p.closeMapping(keys)
			return out, nil
		}
		if p.cur() == '?' && p.blankAt(p.off+1) {
			return nil, p.failAt(p.pos(), "explicit keys (?) are not part of the runx YAML subset")
		}
		coll, sc, err := p.flowNode(n, depth+1, open, "mapping", true)
		if err != nil {
			return nil, err
		}
		if coll != nil {
			return nil, p.failAt(coll.pos, "a mapping key must be a plain name")
		}
		keyEnd := p.pos()
		p.checkKey(&keys, sc.text, sc.pos, sc.plain)
		if err := p.flowSpace(open, "mapping"); err != nil {
			return nil, err
		}
		var value *node
		if p.cur() == ':' {
			if value, err = p.flowEntryValue(n, depth+1, open, "mapping", '}'); err != nil {
				return nil, err
			}
		} else {
			value = p.newNode(scalarNode, keyEnd, nil) // {a} is {a: null}
		}
		p.addEntry(entry{key: sc.text, keyPos: sc.pos, value: value})
		done, err := p.flowNext(open, "mapping", '}')
		if err != nil {
			return nil, err
		}
		if done {
			out.entries = p.closeMapping(keys)
			return out, nil
		}
	}
}

// flowEntryValue reads the value after a flow key's colon (at off); nothing
// before the next comma or the closing bracket is null.
func (p *yamlParser) flowEntryValue(n, depth int, open Position, what string, closer byte) (*node, error) {
	nullPos := p.posAt(p.off + 1)
	p.off++
	if err := p.flowSpace(open, what); err != nil {
		return nil, err
	}
	if c := p.cur(); c == ',' || c == closer {
		return p.newNode(scalarNode, nullPos, nil), nil
	}
	coll, sc, err := p.flowNode(n, depth, open, what, false)
	if err != nil || coll != nil {
		return coll, err
	}
	return p.scalarNode(sc)
}

// flowNext reads what follows an entry: a comma, or the closing bracket,
// which ends the collection (done).
func (p *yamlParser) flowNext(open Position, what string, closer byte) (done bool, err error) {
	if err := p.flowSpace(open, what); err != nil {
		return false, err
	}
	switch p.cur() {
	case ',':
		p.off++
		return false, nil
	case closer:
		p.off++
		return true, nil
	}
	return false, p.failAt(p.pos(), "expected a comma or %q in the %s that starts at line %d, column %d, not %s",
		closer, what, open.Line, open.Column, describeChar(p.s[p.off:]))
}

// flowNode reads one node in a flow collection: a nested collection, or a
// scalar returned unresolved.
func (p *yamlParser) flowNode(n, depth int, open Position, what string, key bool) (*node, flowScalar, error) {
	if depth > maxYAMLDepth {
		return nil, flowScalar{}, p.failAt(p.pos(), "values nest deeper than %d levels", maxYAMLDepth)
	}
	for p.cur() == '&' || p.cur() == '!' {
		p.property()
		if err := p.flowSpace(open, what); err != nil {
			return nil, flowScalar{}, err
		}
	}
	pos := p.pos()
	switch c := p.cur(); c {
	case '[', '{':
		coll, err := p.flowCollection(n, depth)
		return coll, flowScalar{}, err
	case '"', '\'':
		s, err := p.quoted(pos)
		return nil, flowScalar{text: s, pos: pos}, err
	case ',', ']', '}':
		return nil, flowScalar{}, p.failAt(pos, "an empty entry in the %s that starts at line %d, column %d; remove the extra comma", what, open.Line, open.Column)
	case '*':
		p.alias()
	}
	if p.cur() != '*' {
		if err := p.checkPlainStart(pos, true); err != nil {
			return nil, flowScalar{}, err
		}
	}
	start := p.off
	end := p.scanPlain(true, key)
	return nil, flowScalar{text: p.plainLines(start, end, n, true, key), pos: pos, plain: true}, nil
}

// scalarNode gives a flow scalar read as a value its meaning.
func (p *yamlParser) scalarNode(sc flowScalar) (*node, error) {
	if !sc.plain {
		return p.newNode(scalarNode, sc.pos, sc.text), nil
	}
	v, err := p.plainValue(sc.text, sc.pos)
	if err != nil {
		return nil, err
	}
	return p.newNode(scalarNode, sc.pos, v), nil
}

// flowSpace moves past blanks, line breaks and comments inside a flow
// collection.
func (p *yamlParser) flowSpace(open Position, what string) error {
	for {
		p.skipSpace()
		if p.off >= len(p.s) {
			return p.failAt(open, "the %s that starts here is never closed", what)
		}
		switch p.s[p.off] {
		case '#':
			if p.off > p.lineStart && p.s[p.off-1] != ' ' && p.s[p.off-1] != '\t' {
				return p.failAt(p.pos(), "a comment needs a space before its #")
			}
			p.off = p.lineEnd()
		case '\n', '\r':
			p.nextLine()
			if p.atMarker(p.off, "---") || p.atMarker(p.off, "...") {
				return p.failAt(p.pos(), "a document marker inside the %s that starts at line %d, column %d; close it first", what, open.Line, open.Column)
			}
		default:
			return nil
		}
	}
}
