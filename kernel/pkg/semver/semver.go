// Package semver reads semantic versions and orders them by precedence, for
// package loading (a package's minimum_runx against the running runx) and
// the registry (a published version, the newest a runx reads). It is the
// one owner of version syntax in runx: golang.org/x/mod/semver does the
// reading and ordering; this package holds runx's form of a version, the
// full MAJOR.MINOR.PATCH[-pre][+build] with no "v" prefix, which refuses the
// shorthands ("1", "1.2") x/mod also accepts.
package semver

import (
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// maxBytes bounds a version string before it is read.
const maxBytes = 128

// Version is a semantic version. Build metadata is accepted and does not
// count in its order, as semver says.
type Version struct {
	v string // x/mod's form: "v" + the version as written
}

// Parse reads a version of the form MAJOR.MINOR.PATCH[-pre][+build].
func Parse(s string) (Version, error) {
	if !Valid(s) {
		return Version{}, fmt.Errorf("%q is not a version of the form MAJOR.MINOR.PATCH[-pre][+build]", s)
	}
	return Version{v: "v" + s}, nil
}

// Valid reports whether s is a semantic version 2.0.0 in runx's form: no
// "v" prefix, no leading zeros, no empty identifiers, all three numbers.
func Valid(s string) bool {
	if len(s) > maxBytes || strings.HasPrefix(s, "v") || !semver.IsValid("v"+s) {
		return false
	}
	core, _, _ := strings.Cut(s, "+")
	core, _, _ = strings.Cut(core, "-")
	return strings.Count(core, ".") == 2
}

// Compare orders versions by semver precedence (-1, 0, +1): a pre-release
// sorts before its release, so runx 0.2.0-dev does not claim to read a
// 0.2.0 package.
func (v Version) Compare(o Version) int {
	return semver.Compare(v.v, o.v)
}

// Compare orders two version strings by precedence. A string that is not a
// valid version sorts before every valid one, and two such by their bytes,
// so a list holding one still sorts the same way every time.
func Compare(a, b string) int {
	okA, okB := Valid(a), Valid(b)
	switch {
	case !okA && !okB:
		return strings.Compare(a, b)
	case !okA:
		return -1
	case !okB:
		return 1
	}
	return semver.Compare("v"+a, "v"+b)
}
