package registry

import (
	"strings"

	"golang.org/x/mod/semver"
)

// maxVersionBytes bounds a version string before it is parsed.
const maxVersionBytes = 128

// ValidVersion reports whether s is a semantic version 2.0.0: the full
// MAJOR.MINOR.PATCH with an optional pre-release and build metadata, no
// leading zeros, no "v" prefix. golang.org/x/mod/semver reads it (with the
// "v" it expects); the shorthands it also accepts ("1", "1.2") are refused.
func ValidVersion(s string) bool {
	if len(s) > maxVersionBytes || strings.HasPrefix(s, "v") || !semver.IsValid("v"+s) {
		return false
	}
	core, _, _ := strings.Cut(s, "+")
	core, _, _ = strings.Cut(core, "-")
	return strings.Count(core, ".") == 2
}

// CompareVersions orders two valid versions by semver precedence (-1, 0,
// +1); build metadata does not count. An invalid version sorts before every
// valid one, and two invalid ones by their bytes.
func CompareVersions(a, b string) int {
	okA, okB := ValidVersion(a), ValidVersion(b)
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
