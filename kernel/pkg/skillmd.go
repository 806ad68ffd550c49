package pkg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/errcode"
)

// skillDoc is SKILL.md split into what it declares and what it teaches.
type skillDoc struct {
	name, description string
	metadata          map[string]any
	manual            string
}

// parseSkillMD reads SKILL.md: YAML front matter between two `---` lines,
// then the manual. The front matter follows the strict subset (it is read by
// the same parser) but may carry fields runx does not use, because SKILL.md
// is shared with other agent tools that add their own.
func parseSkillMD(file string, src []byte) (*skillDoc, error) {
	return parseSkillMDCached(file, src, nil)
}

// parseSkillMDCached is parseSkillMD taking the front matter's document
// tree from cache's memory when these exact front matter bytes were parsed
// before: an MCP session loads its package on every call, and the YAML
// parse was most of what that load cost. The file is still read and every
// check of the decoded fields still runs on each load.
func parseSkillMDCached(file string, src []byte, cache *PlanCache) (*skillDoc, error) {
	if !utf8.Valid(src) {
		return nil, refuseAt(file, Position{}, errcode.SkillMDInvalid, "SKILL.md is not valid UTF-8")
	}
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	first, rest, _ := bytes.Cut(src, []byte("\n"))
	if strings.TrimRight(string(first), " \t\r") != "---" {
		return nil, refuseAt(file, Position{Line: 1, Column: 1}, errcode.SkillMDInvalid,
			"SKILL.md must start with YAML front matter between --- lines, declaring name and description")
	}
	front, manual, ok := cutFrontMatter(rest)
	if !ok {
		return nil, refuseAt(file, Position{Line: 1, Column: 1}, errcode.SkillMDInvalid, "the front matter opened on line 1 is never closed by a --- line")
	}
	root, err := cache.frontMatter(file, front)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Code != errcode.PackageFileTooLarge {
			e.Code = errcode.SkillMDInvalid
		}
		return nil, err
	}
	d := decoder{file: file, code: errcode.SkillMDInvalid}
	if root == nil || root.kind != mapNode {
		return nil, refuseAt(file, Position{Line: 2, Column: 1}, errcode.SkillMDInvalid, "the front matter must be a mapping declaring name and description")
	}
	doc := &skillDoc{manual: string(manual)}
	f := fields{n: root}
	for _, key := range []string{"name", "description"} {
		e := f.get(key)
		if e == nil {
			return nil, refuseAt(file, root.pos, errcode.SkillMDInvalid, "the front matter must declare %s", key)
		}
		s, err := d.str(e, key)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, d.fail(e.value.pos, "%s must not be empty", key)
		}
		if key == "name" {
			doc.name = strings.TrimSpace(s)
		} else {
			doc.description = strings.TrimSpace(s)
		}
	}
	if strings.ContainsAny(doc.name, "\r\n") {
		return nil, d.fail(f.get("name").value.pos, "name must be one line")
	}
	for _, e := range root.entries {
		if e.key != "name" && e.key != "description" {
			if doc.metadata == nil {
				doc.metadata = map[string]any{}
			}
			doc.metadata[e.key] = e.value.toValue()
		}
	}
	return doc, nil
}

// cutFrontMatter splits at the first line that is exactly `---`.
func cutFrontMatter(rest []byte) (front, manual []byte, ok bool) {
	off := 0
	for off <= len(rest) {
		line, after, found := bytes.Cut(rest[off:], []byte("\n"))
		if strings.TrimRight(string(line), " \t\r") == "---" {
			return rest[:off], after, true
		}
		if !found {
			break
		}
		off += len(line) + 1
	}
	return nil, nil, false
}

// contentDigest is the digest runx gives file content: sha256:<hex> of the bytes.
func contentDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// frontMatterKey names the reading of SKILL.md front matter bytes; the
// digest slot holds a name no package digest can equal, so a front matter
// key never matches a run.yaml entry.
func frontMatterKey(front []byte) string {
	return planKey("skill-front-matter", SkillFile, front)
}

// frontMatter parses SKILL.md's front matter (starting on line 2 of the
// file), from c's memory when the same bytes were parsed before. Only
// memory: the disk entries are run.yaml's. A nil c parses every time.
func (c *PlanCache) frontMatter(file string, front []byte) (*node, error) {
	if c == nil {
		return parseStrict(file, front, 1)
	}
	key := frontMatterKey(front)
	c.mu.Lock()
	root, ok := c.mem[key]
	c.mu.Unlock()
	if ok {
		return root, nil
	}
	root, err := parseStrict(file, front, 1)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.remember(key, root)
	c.mu.Unlock()
	return root, nil
}
