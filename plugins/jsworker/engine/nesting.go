package engine

import (
	"sort"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// MaxSourceNesting bounds how deeply a closure file may nest. esbuild and
// goja parse by recursive descent on the Go stack, and a Go stack that
// outgrows its 1 GB limit kills the process; no recover is possible. Measured
// here, esbuild overflowed on 100,000 nested arrow functions (a 300 KB file)
// and both parsers on a million nested brackets. Hand-written and generated
// code stays far below 10,000.
const MaxSourceNesting = 10000

// checkNesting refuses a closure file whose estimated nesting exceeds
// MaxSourceNesting, before esbuild sees it.
func checkNesting(src Source) *Error {
	names := make([]string, 0, len(src.Files))
	for name := range src.Files {
		names = append(names, name)
	}
	sort.Strings(names) // the same closure always gives the same answer
	for _, name := range names {
		if depth := nestingDepth(src.Files[name]); depth > MaxSourceNesting {
			return refuse(errcode.ModuleSourceTooDeep, "%s nests more than %d levels deep (estimated %d); the parsers recurse once per level", name, MaxSourceNesting, depth)
		}
	}
	return nil
}

// nestingDepth estimates the deepest recursion a parser needs for src. It is
// a lexer, not a parser: it skips comments, strings, template text and
// regular expressions, and counts what makes recursive descent recurse:
// open brackets, runs of prefix operators, and right-nested chains (arrow
// bodies, assignments, conditionals, and if/else/loop statements nested
// without a block). A chain ends at "," or ";" and, for statements, at the
// close of a block not followed by else.
//
// The one place a lexer cannot tell a regular expression from a division is
// after "}" (a block, or an object literal). The scan takes the regular
// expression reading there, measures the would-be literal's brackets as if
// it were code, and keeps any it leaves open. Read as a regular expression
// that changes nothing (its brackets balance, or close with the enclosing
// block); read as code, nothing is hidden. Closers inside such a span never
// close brackets opened outside it.
func nestingDepth(src []byte) int {
	s := nestScanner{src: src, prefix: true, stack: []nestFrame{{}}} // the file's top level
	s.scan()
	return s.max
}

type nestFrame struct {
	open      byte // '(', '[', '{', or '$' for a template substitution
	header    bool // the "(" of if/while/for/with: a statement follows ")"
	phantom   bool // left open by a regular-expression span
	exprChain int  // right-nested expression depth at this level
	stmtChain int  // unbraced statement nesting at this level
}

type nestScanner struct {
	src      []byte
	i        int
	stack    []nestFrame
	chains   int  // sum of every frame's chains, kept for speed
	unary    int  // run of consecutive prefix operators
	prefix   bool // an expression may start here (so "/" starts a regex)
	member   bool // the previous token was "." or "?.", so a keyword is a name
	header   bool // the previous word was if/while/for/with (or the await of for await)
	afterFor bool // the previous word was for
	closed   bool // a block just closed: a statement chain ends unless else follows
	ended    bool // the previous token ended an operand or a block
	line     bool // a line break since the previous token
	max      int
}

func (s *nestScanner) depth() int { return len(s.stack) + s.chains + s.unary }

func (s *nestScanner) note() {
	if d := s.depth(); d > s.max {
		s.max = d
	}
}

func (s *nestScanner) top() *nestFrame { return &s.stack[len(s.stack)-1] }

func (s *nestScanner) chain(stmt bool) {
	f := s.top()
	if stmt {
		f.stmtChain++
	} else {
		f.exprChain++
	}
	s.chains++
	s.note()
}

// endStatement is a ";" or an inserted one: every chain at this level ends,
// and phantom frames on top are dropped, since no real bracket can hold a
// statement boundary directly (a regular expression such as /[[]/ after a
// block leaves one, and without this a file of them would add up).
func (s *nestScanner) endStatement() {
	for len(s.stack) > 1 && s.top().phantom {
		f := s.top()
		s.chains -= f.exprChain + f.stmtChain
		s.stack = s.stack[:len(s.stack)-1]
	}
	s.resetChains(false)
	s.unary = 0
}

func (s *nestScanner) resetChains(stmtOnly bool) {
	f := s.top()
	s.chains -= f.stmtChain
	f.stmtChain = 0
	if !stmtOnly {
		s.chains -= f.exprChain
		f.exprChain = 0
	}
}

func (s *nestScanner) push(open byte, header bool) {
	s.stack = append(s.stack, nestFrame{open: open, header: header})
	s.note()
}

// pop closes the innermost frame opened by one of opens, discarding frames
// above it (brackets a regular-expression span left open). It reports the
// frame, or false when nothing matches: a stray closer is ignored, and the
// file's top level is never closed.
func (s *nestScanner) pop(opens string) (nestFrame, bool) {
	for j := len(s.stack) - 1; j >= 1; j-- {
		if strings.IndexByte(opens, s.stack[j].open) >= 0 {
			f := s.stack[j]
			for _, g := range s.stack[j:] {
				s.chains -= g.exprChain + g.stmtChain
			}
			s.stack = s.stack[:j]
			return f, true
		}
	}
	return nestFrame{}, false
}

// operand records a complete operand: prefix operators before it are done.
func (s *nestScanner) operand() {
	s.unary = 0
	s.prefix = false
	s.ended = true
}

func (s *nestScanner) scan() {
	if len(s.src) > 1 && s.src[0] == '#' && s.src[1] == '!' {
		s.skipLine()
	}
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n' || c == '\r':
			s.line = true
			s.i++
			continue
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			s.i++
			continue
		case c == '/' && s.peek(1) == '/':
			s.skipLine()
			continue
		case c == '/' && s.peek(1) == '*':
			s.skipBlockComment()
			continue
		}
		if s.closed {
			s.closed = false
			if !s.isWord("else") && !s.isWord("while") {
				s.resetChains(true)
			}
		}
		if s.line && s.ended && isWordByte(c) && !s.continuesAfterLineBreak() {
			s.endStatement() // automatic semicolon insertion
		}
		s.line, s.ended = false, false
		switch {
		case c == '"' || c == '\'':
			s.skipString(c)
			s.operand()
		case c == '`':
			s.i++
			s.template()
		case isWordByte(c):
			s.word()
		case c == '/' && s.prefix:
			s.regex()
		default:
			s.punctuator(c)
		}
	}
}

// continuesAfterLineBreak reports whether the word at s.i continues the
// statement before a line break; any other word after a complete operand
// starts a new statement by automatic semicolon insertion.
func (s *nestScanner) continuesAfterLineBreak() bool {
	for _, w := range []string{"in", "instanceof", "of", "else", "while", "catch", "finally"} {
		if s.isWord(w) {
			return true
		}
	}
	return false
}

func (s *nestScanner) peek(n int) byte {
	if s.i+n < len(s.src) {
		return s.src[s.i+n]
	}
	return 0
}

func (s *nestScanner) isWord(w string) bool {
	end := s.i + len(w)
	return end <= len(s.src) && string(s.src[s.i:end]) == w && (end == len(s.src) || !isWordByte(s.src[end]))
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '$' || c == '#' || c == '\\' || c >= 0x80
}

func (s *nestScanner) skipLine() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
}

func (s *nestScanner) skipBlockComment() {
	s.i += 2
	for s.i < len(s.src) && !(s.src[s.i] == '*' && s.peek(1) == '/') {
		s.i++
	}
	s.i += 2
}

func (s *nestScanner) skipString(quote byte) {
	for s.i++; s.i < len(s.src); s.i++ {
		switch s.src[s.i] {
		case '\\':
			s.i++
		case quote, '\n':
			s.i++
			return
		}
	}
}

// template scans template text up to its end or to a "${", which opens a
// frame that the matching "}" closes, resuming the text.
func (s *nestScanner) template() {
	for ; s.i < len(s.src); s.i++ {
		switch s.src[s.i] {
		case '\\':
			s.i++
		case '`':
			s.i++
			s.operand()
			return
		case '$':
			if s.peek(1) == '{' {
				s.i += 2
				s.push('$', false)
				s.prefix = true
				return
			}
		}
	}
}

// prefixWords leave the scanner expecting an expression; of them, the
// unary ones start or extend a run of prefix operators, and the statement
// ones nest the statement that follows.
var (
	prefixWords = map[string]bool{
		"return": true, "typeof": true, "void": true, "delete": true, "new": true, "in": true,
		"of": true, "instanceof": true, "case": true, "do": true, "else": true, "throw": true,
		"yield": true, "await": true, "extends": true, "default": true,
	}
	unaryWords     = map[string]bool{"typeof": true, "void": true, "delete": true, "new": true, "yield": true, "await": true}
	statementWords = map[string]bool{"if": true, "else": true, "while": true, "for": true, "with": true, "do": true}
	headerWords    = map[string]bool{"if": true, "while": true, "for": true, "with": true}
)

func (s *nestScanner) word() {
	start := s.i
	for s.i < len(s.src) && isWordByte(s.src[s.i]) {
		if s.src[s.i] == '\\' {
			s.i++
		}
		s.i++
	}
	w := string(s.src[start:min(s.i, len(s.src))])
	member, afterFor := s.member, s.afterFor
	s.member, s.header, s.afterFor = false, false, false
	if member {
		s.operand() // a property name, even when it spells a keyword
		return
	}
	if statementWords[w] {
		s.chain(true)
	}
	s.header = headerWords[w] || w == "await" && afterFor
	s.afterFor = w == "for"
	switch {
	case unaryWords[w]:
		s.unary++
		s.note()
		s.prefix = true
	case prefixWords[w] || s.header:
		s.prefix = true
	default:
		s.operand()
	}
}

// regex skips a regular expression literal, measuring its brackets as code
// (see nestingDepth). A "/" with no closing "/" on its line is a division.
func (s *nestScanner) regex() {
	j, inClass := s.i+1, false
	for ; j < len(s.src) && s.src[j] != '\n'; j++ {
		c := s.src[j]
		if c == '\\' {
			j++
			continue
		}
		if c == '[' {
			inClass = true
		} else if c == ']' {
			inClass = false
		} else if c == '/' && !inClass {
			break
		}
	}
	if j >= len(s.src) || s.src[j] != '/' {
		s.punctuator('/')
		return
	}
	s.span(s.i+1, j)
	for s.i = j + 1; s.i < len(s.src) && isWordByte(s.src[s.i]); s.i++ { // flags
	}
	s.operand()
}

// span measures src[from:to] as bare brackets: its deepest point counts, and
// openers it leaves unclosed stay open, but its closers only close its own.
func (s *nestScanner) span(from, to int) {
	base := len(s.stack)
	for k := from; k < to; k++ {
		switch c := s.src[k]; c {
		case '\\':
			k++
		case '(', '[', '{':
			s.stack = append(s.stack, nestFrame{open: c, phantom: true})
			s.note()
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			for j := len(s.stack) - 1; j >= base; j-- {
				if s.stack[j].open == open {
					s.stack = s.stack[:j]
					break
				}
			}
		}
	}
}

func (s *nestScanner) punctuator(c byte) {
	s.i++
	header := s.header
	s.member, s.header, s.afterFor = false, false, false
	switch c {
	case '(', '[', '{':
		s.push(c, header && c == '(')
		s.prefix = true
		return
	case ')':
		f, _ := s.pop("(")
		s.operand()
		s.prefix = f.header // after if (...) a statement, perhaps /re/, follows
		return
	case ']':
		s.pop("[")
		s.operand()
		return
	case '}':
		if f, ok := s.pop("{$"); ok && f.open == '$' {
			s.template() // back into the template's text
			return
		}
		s.unary = 0
		s.prefix = true // a block ended (see nestingDepth for object literals)
		s.closed = true
		s.ended = true
		return
	case ';':
		s.endStatement()
		s.prefix = true
		return
	case ',':
		f := s.top()
		s.chains -= f.exprChain
		f.exprChain = 0
		s.unary = 0
		s.prefix = true
		return
	case '.':
		if s.peek(0) == '.' && s.peek(1) == '.' { // spread: a prefix operator
			s.i += 2
			s.unary++
			s.note()
			s.prefix = true
			return
		}
		if s.prefix && s.peek(0) >= '0' && s.peek(0) <= '9' { // .5
			s.word()
			return
		}
		s.member = true
		s.prefix = false
		return
	case '?':
		switch s.peek(0) {
		case '.':
			if d := s.peek(1); d < '0' || d > '9' { // a?.b, not a?.5:c
				s.i++
				s.member = true
				s.prefix = false
				return
			}
		case '?':
			s.i++
			if s.peek(0) == '=' {
				s.i++
				s.chain(false)
			}
			s.prefix = true
			return
		}
		s.chain(false)
		s.prefix = true
		return
	case '=':
		if s.peek(0) == '>' {
			s.i++
			s.chain(false)
			s.unary = 0
			s.prefix = true
			return
		}
		if s.peek(0) == '=' {
			s.skipRun('=')
			s.prefix = true
			return
		}
		s.chain(false)
		s.unary = 0
		s.prefix = true
		return
	case '+', '-':
		if s.peek(0) == c { // ++ or --: keeps the position it found
			s.i++
			if s.prefix {
				s.unary++
				s.note()
			}
			return
		}
		if s.peek(0) == '=' {
			s.i++
			s.chain(false)
			s.prefix = true
			return
		}
		if s.prefix {
			s.unary++
			s.note()
		}
		s.prefix = true
		return
	case '!', '~':
		if c == '!' && s.peek(0) == '=' {
			s.skipRun('=')
			s.prefix = true
			return
		}
		s.unary++
		s.note()
		s.prefix = true
		return
	}
	// Any other operator: * / % < > & | ^ : and their compound forms.
	start := s.i - 1
	for s.i < len(s.src) && isOperatorByte(s.src[s.i]) && s.src[s.i] != '=' {
		s.i++
	}
	if s.i < len(s.src) && s.src[s.i] == '=' && c != ':' {
		s.i++
		if op := string(s.src[start:s.i]); op != "<=" && op != ">=" {
			s.chain(false) // a compound assignment such as *= or >>>=
		}
	}
	s.prefix = true
}

func (s *nestScanner) skipRun(b byte) {
	for s.i < len(s.src) && s.src[s.i] == b {
		s.i++
	}
}

func isOperatorByte(c byte) bool {
	switch c {
	case '*', '/', '%', '<', '>', '&', '|', '^', '=':
		return true
	}
	return false
}
