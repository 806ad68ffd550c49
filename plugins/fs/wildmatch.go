package fs

// This is a port of Git's wildmatch.c (the matcher behind .gitignore and
// pathspecs), kept close to the original so its behaviour, including the
// corner cases of "**" and bracket classes, is Git's and not a lookalike.
// Matching is byte-wise, as in Git.

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches pattern. With pathname set, "*"
// and "?" do not match "/", and "**" between slashes matches any number of
// directories (Git's WM_PATHNAME).
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func dowild(pat, text string, pathname bool) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pch := pat[p]
		if t >= len(text) && pch != '*' {
			return wmAbortAll
		}
		var tch byte
		if t < len(text) {
			tch = text[t]
		}
		switch pch {
		case '\\':
			// A literal match with the next character; a trailing backslash
			// matches nothing.
			p++
			if p >= len(pat) || tch != pat[p] {
				return wmNoMatch
			}
			continue
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			p++
			if p < len(pat) && pat[p] == '*' {
				prev := p - 2
				for p < len(pat) && pat[p] == '*' {
					p++
				}
				if !pathname {
					// Without WM_PATHNAME, "**" is "*", and both cross "/".
					matchSlash = true
				} else if (prev < 0 || pat[prev] == '/') &&
					(p >= len(pat) || pat[p] == '/' || (pat[p] == '\\' && p+1 < len(pat) && pat[p+1] == '/')) {
					// "**/" may match no directory at all: try the rest
					// of the pattern here first.
					if p < len(pat) && pat[p] == '/' && dowild(pat[p+1:], text[t:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if p >= len(pat) {
				// A trailing "**" matches everything; a trailing "*" only
				// what holds no further slash.
				if !matchSlash && indexByte(text[t:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && pat[p] == '/' {
				// One star then a slash matches the rest of one directory.
				slash := indexByte(text[t:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				t += slash
				// The loop's increment consumes the slash in both strings.
				continue
			}
			for {
				if t >= len(text) {
					break
				}
				tch = text[t]
				// Skip ahead to the next occurrence of a literal that
				// follows the star; the text before it belongs to the star.
				if !isGlobSpecial(pat[p]) {
					lit := pat[p]
					for t < len(text) && (matchSlash || text[t] != '/') {
						if text[t] == lit {
							break
						}
						t++
					}
					if t >= len(text) || text[t] != lit {
						if matchSlash {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
					tch = text[t]
				}
				matched := dowild(pat[p:], text[t:], pathname)
				if matched != wmNoMatch {
					if !matchSlash || matched != wmAbortToStarStar {
						return matched
					}
				} else if !matchSlash && tch == '/' {
					return wmAbortToStarStar
				}
				t++
			}
			return wmAbortAll
		case '[':
			res, next := matchClass(pat, p, tch)
			if res == wmAbortAll {
				return wmAbortAll
			}
			if res == wmNoMatch || (pathname && tch == '/') {
				return wmNoMatch
			}
			p = next
			continue
		default:
			if tch != pch {
				return wmNoMatch
			}
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// matchClass matches one character against the bracket expression that
// starts at pat[open] == '['. It returns the verdict and the index of the
// closing ']'.
func matchClass(pat string, open int, tch byte) (int, int) {
	p := open + 1
	at := func(i int) byte {
		if i < len(pat) {
			return pat[i]
		}
		return 0
	}
	pch := at(p)
	if pch == '^' {
		pch = '!'
	}
	negated := pch == '!'
	if negated {
		p++
		pch = at(p)
	}
	var prev byte
	matched := false
	for {
		if pch == 0 {
			return wmAbortAll, p
		}
		switch {
		case pch == '\\':
			p++
			pch = at(p)
			if pch == 0 {
				return wmAbortAll, p
			}
			if tch == pch {
				matched = true
			}
		case pch == '-' && prev != 0 && at(p+1) != 0 && at(p+1) != ']':
			p++
			pch = at(p)
			if pch == '\\' {
				p++
				pch = at(p)
				if pch == 0 {
					return wmAbortAll, p
				}
			}
			if tch <= pch && tch >= prev {
				matched = true
			}
			pch = 0 // a range does not start another range
		case pch == '[' && at(p+1) == ':':
			s := p + 2
			q := s
			for at(q) != 0 && at(q) != ']' {
				q++
			}
			if at(q) == 0 {
				return wmAbortAll, q
			}
			if q-s-1 < 0 || pat[q-1] != ':' {
				// No ":]", so "[" is an ordinary member of the set.
				p = s - 2
				pch = '['
				if tch == pch {
					matched = true
				}
				break
			}
			ok, known := classMatches(pat[s:q-1], tch)
			if !known {
				return wmAbortAll, q
			}
			if ok {
				matched = true
			}
			p = q
			pch = 0
		default:
			if tch == pch {
				matched = true
			}
		}
		prev = pch
		p++
		pch = at(p)
		if pch == ']' {
			break
		}
	}
	if matched == negated {
		return wmNoMatch, p
	}
	return wmMatch, p
}

// classMatches evaluates a POSIX character class by name, in the C locale.
func classMatches(name string, c byte) (matched, known bool) {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	isAlpha := isUpper || isLower
	isPrint := c >= 0x20 && c <= 0x7e
	isSpace := c == ' ' || (c >= '\t' && c <= '\r')
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isPrint && c != ' ', true
	case "lower":
		return isLower, true
	case "print":
		return isPrint, true
	case "punct":
		return isPrint && c != ' ' && !isAlpha && !isDigit, true
	case "space":
		return isSpace, true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
