package authority

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// projectPrefix marks a package the project authored rather than one from a
// registry or bundled with runx.
const projectPrefix = "project:"

// Packages is the packages field: the packages every call's chain must be
// covered by. Stated and empty covers nothing; not stated covers everything,
// since the host put no bound on packages. The two are kept apart
// explicitly because a nil-versus-empty slice is too easy to lose.
type Packages struct {
	Patterns []string
	Stated   bool
}

// PackagesOf is a stated packages list.
func PackagesOf(patterns ...string) Packages {
	return Packages{Patterns: append([]string{}, patterns...), Stated: true}
}

// IsZero reports whether the field was not stated; encoding/json's omitzero
// uses it, so a stated [] is kept in the document and its digest.
func (p Packages) IsZero() bool { return !p.Stated }

// MarshalJSON writes the stated list, [] included.
func (p Packages) MarshalJSON() ([]byte, error) {
	if p.Patterns == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(p.Patterns)
}

// Covers reports whether ref (`<publisher>/<name>` or `project:<name>`) is
// covered: every package when the field is not stated, else a pattern that
// matches it segment by segment, * standing for exactly one segment.
func (p Packages) Covers(ref string) bool {
	if !p.Stated {
		return true
	}
	for _, pat := range p.Patterns {
		if patternCovers(pat, ref) {
			return true
		}
	}
	return false
}

// CheckChain refuses a call whose chain (the packages from the run's root to
// the one making the call) holds a package the list does not cover, naming
// that package and the chain.
func (p Packages) CheckChain(chain []string) error {
	for _, ref := range chain {
		if !p.Covers(ref) {
			return refusal(errcode.PackageNotCovered, fmt.Sprintf("packages %v", p.Patterns),
				fmt.Sprintf("package %q in the call's chain %v is not covered by the authority's packages", ref, chain))
		}
	}
	return nil
}

// Narrows reports whether inner, a term's packages, asks for no package
// this list does not cover: each of its patterns is covered by one of
// these, * covering a whole segment whatever stands in it. Either list not
// stated narrows: this one bounds nothing, or inner keeps this one's.
func (p Packages) Narrows(inner Packages) bool {
	if !p.Stated || !inner.Stated {
		return true
	}
	for _, pat := range inner.Patterns {
		if !slices.ContainsFunc(p.Patterns, func(outer string) bool { return patternNarrows(outer, pat) }) {
			return false
		}
	}
	return true
}

// patternNarrows: outer covers every ref inner covers.
func patternNarrows(outer, inner string) bool {
	seg := func(o, i string) bool { return o == "*" || o == i }
	op, ip := strings.HasPrefix(outer, projectPrefix), strings.HasPrefix(inner, projectPrefix)
	if op != ip {
		return false
	}
	if op {
		return seg(outer[len(projectPrefix):], inner[len(projectPrefix):])
	}
	opub, oname, _ := strings.Cut(outer, "/")
	ipub, iname, _ := strings.Cut(inner, "/")
	return seg(opub, ipub) && seg(oname, iname)
}

func patternCovers(pat, ref string) bool {
	patProject, refProject := strings.HasPrefix(pat, projectPrefix), strings.HasPrefix(ref, projectPrefix)
	if patProject != refProject {
		return false
	}
	if patProject {
		return segmentCovers(pat[len(projectPrefix):], ref[len(projectPrefix):])
	}
	pp, pn, ok1 := strings.Cut(pat, "/")
	rp, rn, ok2 := strings.Cut(ref, "/")
	return ok1 && ok2 && segmentCovers(pp, rp) && segmentCovers(pn, rn)
}

// segmentCovers matches one segment of a ref; a ref segment must itself be
// a name, so * never stretches over a slash into a second segment.
func segmentCovers(pat, seg string) bool {
	return validPackageSegment(seg) && (pat == "*" || pat == seg)
}

// validPackagePattern accepts `<publisher>/<name>` and `project:<name>`,
// each segment a package name or * on its own. A partial wildcard such as
// ac* is refused: * stands for a whole segment, nothing less.
func validPackagePattern(pat string) bool {
	if rest, ok := strings.CutPrefix(pat, projectPrefix); ok {
		return validPatternSegment(rest)
	}
	pub, name, ok := strings.Cut(pat, "/")
	return ok && validPatternSegment(pub) && validPatternSegment(name)
}

func validPatternSegment(s string) bool {
	return s == "*" || validPackageSegment(s)
}

// validPackageSegment accepts a publisher or package name: letters, digits,
// '.', '_' and '-', not starting with '.' (so neither . nor .. is a name).
func validPackageSegment(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func parsePackages(field string, raw json.RawMessage) (Packages, error) {
	pats, err := strs(field, raw)
	if err != nil {
		return Packages{}, err
	}
	seen := map[string]bool{}
	for i, pat := range pats {
		f := indexField(field, i)
		if !validPackagePattern(pat) {
			return Packages{}, docError(errcode.AuthorityInvalidValue, f,
				fmt.Sprintf("%q is not <publisher>/<name> or project:<name> (* stands for one whole segment)", pat))
		}
		if seen[pat] {
			return Packages{}, docError(errcode.AuthorityDuplicateEntry, f, fmt.Sprintf("%q is listed twice", pat))
		}
		seen[pat] = true
	}
	return Packages{Patterns: pats, Stated: true}, nil
}
