package pkg

import "strings"

// blockScalar reads a literal (|) or folded (>) block scalar whose header is
// at off, inside a block of indentation n. Its content is indented deeper
// than n: by the indentation indicator when there is one, else as deep as
// its first non-empty line.
func (p *yamlParser) blockScalar(n int, pos Position) (*node, error) {
	literal := p.s[p.off] == '|'
	p.off++
	var chomp byte // '-' strip, '+' keep, 0 clip
	indicator := 0
	for range 2 {
		switch c := p.cur(); {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
			p.off++
		case c >= '1' && c <= '9' && indicator == 0:
			indicator = int(c - '0')
			p.off++
		}
	}
	if !p.blankAt(p.off) {
		return nil, p.failAt(pos, "a block scalar header is | or > with an optional chomping indicator (- or +) and indentation indicator (1-9), then the end of the line")
	}
	if err := p.endLine(); err != nil {
		return nil, err
	}
	indent := -1
	if indicator > 0 {
		indent = max(n, 0) + indicator
	}
	lines := p.blockLines[:0]
	maxLeading := 0 // the most spaces on an empty line before the first text
	for p.off < len(p.s) {
		ls := p.off
		i := ls
		for i < len(p.s) && p.s[i] == ' ' {
			i++
		}
		spaces := i - ls
		le := p.lineEnd()
		if i < le { // the line holds more than spaces
			if indent < 0 {
				if spaces <= n || p.atDocumentMarker(spaces) {
					break
				}
				if maxLeading > spaces {
					return nil, p.failAt(pos, "a leading empty line of this block scalar has more spaces than its first line of text")
				}
				indent = spaces
			}
			if spaces < indent || p.atDocumentMarker(spaces) {
				break
			}
			lines = append(lines, p.s[ls+indent:le])
		} else if indent >= 0 && spaces > indent {
			lines = append(lines, p.s[ls+indent:le]) // spaces beyond the indentation are text
		} else {
			lines = append(lines, "")
			if indent < 0 {
				maxLeading = max(maxLeading, spaces)
			}
		}
		p.off = le
		if p.off >= len(p.s) {
			break
		}
		p.nextLine()
	}
	p.blockLines = lines[:0]

	last := len(lines) - 1 // the last line with text
	for last >= 0 && lines[last] == "" {
		last--
	}
	var b strings.Builder
	if literal {
		for i, l := range lines[:last+1] {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(l)
		}
	} else {
		foldLines(&b, lines[:last+1])
	}
	// The line breaks after the last line of text: its own, and those of
	// the empty lines after it. The end of the file ends a line as a line
	// break does, as the YAML test suite reads it.
	breaks := len(lines) - last
	if last < 0 {
		breaks--
	}
	switch {
	case chomp == '+':
		b.WriteString(strings.Repeat("\n", breaks))
	case chomp == 0 && last >= 0 && breaks > 0:
		b.WriteByte('\n')
	}
	return p.newNode(scalarNode, pos, b.String()), nil
}

// foldLines joins a folded scalar's lines: a line break between two lines
// of text reads as a space, or as the empty lines between them; breaks
// around more-indented lines (which start with a blank) are kept.
func foldLines(b *strings.Builder, lines []string) {
	empties := 0
	first, prevText := true, false
	for _, l := range lines {
		if l == "" {
			empties++
			continue
		}
		text := l[0] != ' ' && l[0] != '\t'
		switch {
		case first:
			b.WriteString(strings.Repeat("\n", empties))
		case prevText && text && empties == 0:
			b.WriteByte(' ')
		case prevText && text:
			b.WriteString(strings.Repeat("\n", empties))
		default:
			b.WriteString(strings.Repeat("\n", empties+1))
		}
		b.WriteString(l)
		first, prevText, empties = false, text, 0
	}
}
