package fs

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// ignorePattern is one line of an ignore file, parsed as Git's dir.c parses
// it.
type ignorePattern struct {
	glob     string
	negate   bool // "!pattern" re-includes what an earlier pattern excluded
	dirOnly  bool // "pattern/" matches directories only
	basename bool // no slash: matches the name at any depth below the file
}

// ignoreRules are the patterns of one ignore file, with the directory they
// are relative to.
type ignoreRules struct {
	// dir is the slash path, relative to the walk's base, of the directory
	// holding the file ("" for the base itself and for .git/info/exclude).
	dir      string
	patterns []ignorePattern
}

// ignoreStack is every ignore file that applies at one directory,
// shallowest first. Git gives a deeper file precedence, and within one file
// the last matching line wins.
type ignoreStack []*ignoreRules

// parseIgnore reads an ignore file's content with Git's rules: blank lines
// and "#" comments are skipped, unescaped trailing spaces trimmed, "!"
// negates, a trailing "/" means directories only, and a pattern with no
// other slash matches a name at any depth.
func parseIgnore(dir string, content []byte) *ignoreRules {
	rules := &ignoreRules{dir: dir}
	sc := bufio.NewScanner(bytes.NewReader(content))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimTrailingSpaces(line)
		var pat ignorePattern
		if line != "" && line[0] == '!' {
			pat.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			pat.dirOnly = true
			line = line[:len(line)-1]
		}
		if line == "" {
			continue
		}
		if !strings.Contains(line, "/") {
			pat.basename = true
		} else {
			line = strings.TrimPrefix(line, "/")
		}
		pat.glob = line
		rules.patterns = append(rules.patterns, pat)
	}
	return rules
}

// trimTrailingSpaces drops trailing spaces unless a backslash escapes them,
// as Git's trim_trailing_spaces does.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end == len(s) {
				end = i
			}
		case '\\':
			i++
			end = len(s)
		default:
			end = len(s)
		}
	}
	if end < len(s) {
		return s[:end]
	}
	return s
}

// match is the verdict of the last pattern in r matching relBase, a slash
// path relative to the walk's base; matched is false when no pattern does.
func (r *ignoreRules) match(relBase string, isDir bool) (ignored, matched bool) {
	rel := relBase
	if r.dir != "" {
		if !strings.HasPrefix(relBase, r.dir+"/") {
			return false, false
		}
		rel = relBase[len(r.dir)+1:]
	}
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := len(r.patterns) - 1; i >= 0; i-- {
		p := &r.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		var ok bool
		if p.basename {
			ok = wildmatch(p.glob, name, false)
		} else {
			ok = wildmatch(p.glob, rel, true)
		}
		if ok {
			return !p.negate, true
		}
	}
	return false, false
}

// ignored reports whether relBase is excluded: the deepest file with a
// matching pattern decides.
func (s ignoreStack) ignored(relBase string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if ignored, matched := s[i].match(relBase, isDir); matched {
			return ignored
		}
	}
	return false
}

// with returns the stack plus rules without sharing the caller's backing
// array, so sibling directories never see each other's ignore files.
func (s ignoreStack) with(rules *ignoreRules) ignoreStack {
	if rules == nil || len(rules.patterns) == 0 {
		return s
	}
	out := make(ignoreStack, len(s), len(s)+1)
	copy(out, s)
	return append(out, rules)
}

// maxIgnoreFileBytes bounds an ignore file; Git reads them whole, but one
// this large is not a list of patterns anyone wrote.
const maxIgnoreFileBytes = 4 << 20

// loadIgnoreFile reads dirReal/.gitignore, or returns nil.
func loadIgnoreFile(dirReal, relDir string) *ignoreRules {
	return loadRulesFrom(filepath.Join(dirReal, ".gitignore"), relDir)
}

func loadRulesFrom(file, relDir string) *ignoreRules {
	info, err := os.Lstat(file)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxIgnoreFileBytes {
		return nil
	}
	content, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	return parseIgnore(relDir, content)
}

// repoExclude reads the repository's info/exclude for a worktree at top.
// .git may be a directory, or a file pointing at the real git directory
// (linked worktrees and submodules), whose shared part is named by
// commondir.
func repoExclude(top string) *ignoreRules {
	gitPath := filepath.Join(top, ".git")
	info, err := os.Lstat(gitPath)
	if err != nil {
		return nil
	}
	gitDir := gitPath
	if info.Mode().IsRegular() {
		raw, err := os.ReadFile(gitPath)
		if err != nil {
			return nil
		}
		line := strings.TrimSpace(string(raw))
		if !strings.HasPrefix(line, "gitdir:") {
			return nil
		}
		gitDir = strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(top, gitDir)
		}
		if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			c := strings.TrimSpace(string(common))
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitDir, c)
			}
			gitDir = c
		}
	} else if !info.IsDir() {
		return nil
	}
	return loadRulesFrom(filepath.Join(gitDir, "info", "exclude"), "")
}
