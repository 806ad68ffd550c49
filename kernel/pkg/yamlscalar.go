package pkg

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// checkPlainStart refuses a character that cannot start an unquoted value.
func (p *yamlParser) checkPlainStart(pos Position, flow bool) error {
	c := p.cur()
	switch c {
	case ',', '[', ']', '{', '}', '#', '|', '>', '\'', '"', '%', '@', '`':
		return p.failAt(pos, "%s cannot start an unquoted value; quote the value", describeChar(p.s[p.off:]))
	case '-', '?', ':':
		next := byte(' ')
		if p.off+1 < len(p.s) {
			next = p.s[p.off+1]
		}
		if isBlankOrBreak(next) || (flow && isFlowIndicator(next)) {
			return p.failAt(pos, "%q followed by a space cannot start a value here; quote the value", c)
		}
	case 0:
		return p.failAt(pos, "a value was expected here")
	}
	return nil
}

// scanPlain reads the rest of an unquoted value's current line and returns
// where its text ends (trailing blanks excluded). off is left at what ended
// it: a line break, a ": " (a key's colon), a comment, or in flow context a
// flow indicator. Where a flow key may stand (flowKey), a colon ends the key
// even with no space after it unless a slash follows, as the parser runx
// used before read {a:1} and {http://x: 1} (see docs/decisions.md).
func (p *yamlParser) scanPlain(flow, flowKey bool) int {
	s := p.s
	i, end := p.off, p.off
scan:
	for i < len(s) {
		switch s[i] {
		case '\n', '\r':
			break scan
		case ' ', '\t':
			i++
			continue
		case ':':
			if i+1 >= len(s) || isBlankOrBreak(s[i+1]) || (flow && (isFlowIndicator(s[i+1]) || (flowKey && s[i+1] != '/'))) {
				break scan
			}
		case '#':
			if i > p.off && (s[i-1] == ' ' || s[i-1] == '\t') {
				p.off = end
				return end
			}
		case ',', '[', ']', '{', '}':
			if flow {
				break scan
			}
		}
		i++
		end = i
	}
	p.off = i
	return end
}

// plainLines continues an unquoted value onto the lines after its first when
// they are indented deeper than n (its block's indentation), folding as YAML
// does: one line break reads as a space, each empty line as a newline. off is
// left after the last text read, or where the first line ended.
func (p *yamlParser) plainLines(start, end, n int, flow, flowKey bool) string {
	text := p.s[start:end]
	var b []byte
	for {
		eol := p.off
		for eol < len(p.s) && (p.s[eol] == ' ' || p.s[eol] == '\t') {
			eol++
		}
		if eol >= len(p.s) || (p.s[eol] != '\n' && p.s[eol] != '\r') {
			break
		}
		saveOff, saveLine, saveStart := p.off, p.line, p.lineStart
		p.off = eol
		breaks := 0
		cont := -1
		for p.off < len(p.s) {
			p.nextLine()
			i := p.off
			for i < len(p.s) && p.s[i] == ' ' {
				i++
			}
			indent := i - p.lineStart
			for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t') {
				i++
			}
			if i >= len(p.s) {
				break
			}
			if p.s[i] == '\n' || p.s[i] == '\r' {
				breaks++
				p.off = i
				continue
			}
			if p.s[i] != '#' && indent > n && !p.atDocumentMarker(indent) {
				cont = i
			}
			break
		}
		if cont < 0 {
			p.off, p.line, p.lineStart = saveOff, saveLine, saveStart
			break
		}
		p.off = cont
		ce := p.scanPlain(flow, flowKey)
		if ce == cont {
			// Nothing of the value on this line (it starts with ": " or a
			// flow indicator): the value ended on the line before.
			p.off, p.line, p.lineStart = saveOff, saveLine, saveStart
			break
		}
		if b == nil {
			b = append(make([]byte, 0, len(text)+ce-cont+8), text...)
		}
		if breaks == 0 {
			b = append(b, ' ')
		}
		for ; breaks > 0; breaks-- {
			b = append(b, '\n')
		}
		b = append(b, p.s[cont:ce]...)
	}
	if b != nil {
		return string(b)
	}
	return text
}

// plainValue gives an unquoted value its JSON meaning: null, a boolean, a
// number JSON readers hold exactly, or a string. Which texts are numbers
// follows the parser runx used before (yamlNumberKind), so no file changes
// meaning; forms YAML 1.1 and 1.2 read differently are refused.
func (p *yamlParser) plainValue(s string, pos Position) (any, error) {
	switch s {
	case "null", "Null", "NULL", "~":
		return nil, nil
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	case ".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
		return nil, p.failAt(pos, "%s is not a number JSON can hold", s)
	}
	if !maybeNumber(s) {
		return s, nil // the common case: text that cannot be a number
	}
	switch yamlNumberKind(s) {
	case yamlInteger:
		text := strings.TrimPrefix(s, "+")
		if !isDecimalInteger(text) {
			return nil, p.failAt(pos, "write integers in decimal (%s is read differently by YAML 1.1 and 1.2); quote it to pass a string", s)
		}
		v, err := numberFromText(text)
		if err != nil {
			return nil, p.failAt(pos, "%v; quote it to pass a string", err)
		}
		return v, nil
	case yamlFloat:
		f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if err != nil {
			return nil, p.failAt(pos, "%s is not a number JSON can hold", s)
		}
		return f, nil
	}
	// A number written with an exponent, or too large for an int64, is
	// still a number in YAML; it is read as one, or refused if JSON readers
	// cannot hold it exactly.
	if looksLikeJSONNumber(s) {
		v, err := numberFromText(strings.TrimPrefix(s, "+"))
		if err != nil {
			return nil, p.failAt(pos, "%v; quote it to pass a string", err)
		}
		return v, nil
	}
	return s, nil
}

// maybeNumber is a quick, conservative test for text yamlNumberKind or
// looksLikeJSONNumber could read as a number: after the signs they strip,
// it starts with a digit, a dot or an underscore.
func maybeNumber(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '.' || s[0] == '_')
}

type yamlNumber uint8

const (
	yamlNotNumber yamlNumber = iota
	yamlInteger              // decimal, or octal, hex or binary (refused)
	yamlFloat
)

// yamlNumberKind classifies an unquoted value as goccy/go-yaml v1.19's
// token.New did (token.toNumber), so a value means what it meant when runx
// read YAML with that library: integer when it parses as one in its base,
// float when it has exactly one dot and parses as a float, otherwise not a
// number.
func yamlNumberKind(value string) yamlNumber {
	if value == "" || value[0] == '_' || strings.Count(value, ".") > 1 {
		return yamlNotNumber
	}
	negative := value[0] == '-'
	normalized := strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(value, "+"), "-"), "_", "")
	base := 10
	float := false
	switch {
	case strings.HasPrefix(normalized, "0x"):
		normalized, base = normalized[2:], 16
	case strings.HasPrefix(normalized, "0o"):
		normalized, base = normalized[2:], 8
	case strings.HasPrefix(normalized, "0b"):
		normalized, base = normalized[2:], 2
	case normalized != "" && normalized[0] == '0' && len(normalized) > 1 && !strings.Contains(value, "."):
		base = 8
	case strings.Contains(value, "."):
		float = true
	}
	text := normalized
	if negative {
		text = "-" + text
	}
	var err error
	switch {
	case float:
		_, err = strconv.ParseFloat(text, 64)
	case negative:
		_, err = strconv.ParseInt(text, base, 64)
	default:
		_, err = strconv.ParseUint(text, base, 64)
	}
	switch {
	case err != nil:
		return yamlNotNumber
	case float:
		return yamlFloat
	}
	return yamlInteger
}

// quoted reads a single- or double-quoted scalar starting at off (its
// opening quote, at open) and leaves off after the closing quote.
func (p *yamlParser) quoted(open Position) (string, error) {
	q := p.s[p.off]
	p.off++
	start := p.off
	// Most strings are one line without escapes: a substring of the source.
	for i := start; i < len(p.s); i++ {
		c := p.s[i]
		if c == q {
			if q == '\'' && i+1 < len(p.s) && p.s[i+1] == '\'' {
				break
			}
			p.off = i + 1
			return p.s[start:i], nil
		}
		if (c == '\\' && q == '"') || c == '\n' || c == '\r' {
			break
		}
	}
	b := make([]byte, 0, 32)
	keep := 0 // b's length without trailing blanks that a line break drops
	for {
		if p.off >= len(p.s) {
			return "", p.failAt(open, "the quoted string that starts here is never closed")
		}
		c := p.s[p.off]
		switch {
		case c == q:
			if q == '\'' && p.off+1 < len(p.s) && p.s[p.off+1] == '\'' {
				b = append(b, '\'')
				p.off += 2
				keep = len(b)
				continue
			}
			p.off++
			return string(b), nil
		case c == '\\' && q == '"':
			next := byte(0)
			if p.off+1 < len(p.s) {
				next = p.s[p.off+1]
			}
			if next == '\n' || next == '\r' {
				// An escaped line break joins the lines with nothing between;
				// empty lines after it still read as newlines.
				p.off++
				for {
					p.nextLine()
					if err := p.quotedLineStart(open); err != nil {
						return "", err
					}
					p.skipSpace()
					if p.off >= len(p.s) || (p.s[p.off] != '\n' && p.s[p.off] != '\r') {
						break
					}
					b = append(b, '\n')
				}
				keep = len(b)
				continue
			}
			var err error
			if b, err = p.escape(b); err != nil {
				return "", err
			}
			keep = len(b)
		case c == '\n' || c == '\r':
			b = b[:keep]
			p.nextLine()
			breaks := 0
			for {
				if err := p.quotedLineStart(open); err != nil {
					return "", err
				}
				p.skipSpace()
				if p.off < len(p.s) && (p.s[p.off] == '\n' || p.s[p.off] == '\r') {
					breaks++
					p.nextLine()
					continue
				}
				break
			}
			if breaks == 0 {
				b = append(b, ' ')
			}
			for ; breaks > 0; breaks-- {
				b = append(b, '\n')
			}
			keep = len(b)
		default:
			b = append(b, c)
			p.off++
			if c != ' ' && c != '\t' {
				keep = len(b)
			}
		}
	}
}

// quotedLineStart refuses a document marker inside a quoted string.
func (p *yamlParser) quotedLineStart(open Position) error {
	if p.atMarker(p.off, "---") || p.atMarker(p.off, "...") {
		return p.failAt(p.pos(), "a document marker inside the quoted string that starts at line %d, column %d; close the string first", open.Line, open.Column)
	}
	return nil
}

// escape decodes the double-quoted escape at off (a backslash) onto b.
func (p *yamlParser) escape(b []byte) ([]byte, error) {
	at, start := p.pos(), p.off
	if p.off+1 >= len(p.s) {
		return nil, p.failAt(at, "a backslash ends the file inside a double-quoted string")
	}
	e := p.s[p.off+1]
	p.off += 2
	if s := simpleEscape(e); s != "" {
		return append(b, s...), nil
	}
	digits := 0
	switch e {
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	default:
		r, _ := utf8.DecodeRuneInString(p.s[start+1:])
		return nil, p.failAt(at, "unknown escape \\%s in a double-quoted string; write a backslash as \\\\", strings.Trim(strconv.QuoteRune(r), "'"))
	}
	r, ok := p.hexRune(digits)
	if !ok {
		return nil, p.failAt(at, "escape \\%c needs %d hexadecimal digits", e, digits)
	}
	if e == 'u' && r >= 0xD800 && r <= 0xDBFF && strings.HasPrefix(p.s[p.off:], "\\u") {
		// A UTF-16 surrogate pair, as JSON writes characters beyond U+FFFF.
		save := p.off
		p.off += 2
		if lo, ok := p.hexRune(4); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
		} else {
			p.off = save
		}
	}
	if !utf8.ValidRune(r) {
		return nil, p.failAt(at, "escape %s is not a Unicode character", p.s[start:p.off])
	}
	return utf8.AppendRune(b, r), nil
}

func simpleEscape(e byte) string {
	switch e {
	case '0':
		return "\x00"
	case 'a':
		return "\a"
	case 'b':
		return "\b"
	case 't', '\t':
		return "\t"
	case 'n':
		return "\n"
	case 'v':
		return "\v"
	case 'f':
		return "\f"
	case 'r':
		return "\r"
	case 'e':
		return "\x1b"
	case ' ':
		return " "
	case '"':
		return "\""
	case '/':
		return "/"
	case '\\':
		return "\\"
	case 'N':
		return "\u0085"
	case '_':
		return "\u00a0"
	case 'L':
		return "\u2028"
	case 'P':
		return "\u2029"
	}
	return ""
}

// hexRune reads n hexadecimal digits at off.
func (p *yamlParser) hexRune(n int) (rune, bool) {
	if p.off+n > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.off:p.off+n], 16, 32)
	if err != nil {
		return 0, false
	}
	p.off += n
	return rune(v), true
}
