package fs

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxMatchTextBytes bounds the line text a match carries: minified files
// put a whole program on one line.
const maxMatchTextBytes = 400

// matchContextBytes is how much of a long line is kept before the match.
const matchContextBytes = 100

// binarySniffBytes is how far Git looks for a NUL byte to call a file binary.
const binarySniffBytes = 8000

// Match is one matching line. Line and Column are 1-based; Column counts
// bytes, so it is exact for any encoding.
type Match struct {
	Path          string `json:"path"`
	Line          int    `json:"line"`
	Column        int    `json:"column"`
	Text          string `json:"text"`
	TextTruncated bool   `json:"text_truncated,omitempty"`
}

// finder finds the next match at or after from, returning its absolute
// bounds or start < 0.
type finder interface {
	find(content []byte, from int) (start, end int)
}

type literalFinder []byte

func (q literalFinder) find(content []byte, from int) (int, int) {
	i := bytes.Index(content[from:], q)
	if i < 0 {
		return -1, -1
	}
	return from + i, from + i + len(q)
}

type regexFinder struct{ re *regexp.Regexp }

func (f regexFinder) find(content []byte, from int) (int, int) {
	loc := f.re.FindIndex(content[from:])
	if loc == nil {
		return -1, -1
	}
	return from + loc[0], from + loc[1]
}

// looksBinary is Git's test: a NUL byte near the start.
func looksBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), binarySniffBytes)], 0) >= 0
}

// matchLines reports at most limit matching lines of content, one per line
// (the first match on it), as grep does.
func matchLines(content []byte, f finder, path string, limit int) []Match {
	var out []Match
	line, counted := 1, 0
	for from := 0; from <= len(content) && len(out) < limit; {
		start, end := f.find(content, from)
		if start < 0 {
			break
		}
		line += bytes.Count(content[counted:start], []byte{'\n'})
		counted = start
		lineStart := bytes.LastIndexByte(content[:start], '\n') + 1
		lineEnd := len(content)
		if i := bytes.IndexByte(content[start:], '\n'); i >= 0 {
			lineEnd = start + i
		}
		text, clipped := clipLine(content[lineStart:lineEnd], start-lineStart, end-start)
		out = append(out, Match{Path: path, Line: line, Column: start - lineStart + 1, Text: text, TextTruncated: clipped})
		from = lineEnd + 1
	}
	return out
}

// clipLine bounds a line's text around the match at offset, on UTF-8
// boundaries, and makes it valid UTF-8 for JSON.
func clipLine(line []byte, offset, length int) (string, bool) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	clipped := false
	if len(line) > maxMatchTextBytes {
		from := max(0, offset-matchContextBytes)
		if length > maxMatchTextBytes-matchContextBytes {
			from = offset
		}
		to := min(len(line), from+maxMatchTextBytes)
		for from > 0 && !utf8.RuneStart(line[from]) {
			from--
		}
		for to < len(line) && !utf8.RuneStart(line[to]) {
			to--
		}
		line = line[from:to]
		clipped = true
	}
	return strings.ToValidUTF8(string(line), "\uFFFD"), clipped
}

// includeGlobs filters the files a walk searches. A glob with no slash
// matches a file's name; one with a slash matches its path relative to the
// search root, "**" included. A leading "!" excludes.
type includeGlobs struct {
	positive []ignorePattern
	negative []ignorePattern
}

// globList accepts one glob or a list, as agents write both.
type globList []string

func (g *globList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*g = globList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*g = many
	return nil
}

func compileIncludes(globs []string) includeGlobs {
	var inc includeGlobs
	for _, g := range globs {
		negate := strings.HasPrefix(g, "!")
		g = strings.TrimPrefix(g, "!")
		if g == "" {
			continue
		}
		p := ignorePattern{glob: strings.TrimPrefix(g, "/"), basename: !strings.Contains(g, "/")}
		if negate {
			inc.negative = append(inc.negative, p)
		} else {
			inc.positive = append(inc.positive, p)
		}
	}
	return inc
}

func (inc includeGlobs) admits(rel string) bool {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	hit := func(ps []ignorePattern) bool {
		for _, p := range ps {
			if p.basename && wildmatch(p.glob, name, false) || !p.basename && wildmatch(p.glob, rel, true) {
				return true
			}
		}
		return false
	}
	if len(inc.positive) > 0 && !hit(inc.positive) {
		return false
	}
	return !hit(inc.negative)
}
