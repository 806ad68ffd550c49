package registry

import (
	"strconv"
	"strings"
)

// ValidVersion reports whether s is a semantic version 2.0.0:
// MAJOR.MINOR.PATCH with an optional pre-release and build metadata, no
// leading zeros, no "v" prefix.
func ValidVersion(s string) bool {
	_, ok := parseSemver(s)
	return ok
}

// CompareVersions orders two valid versions by semver precedence (-1, 0,
// +1); build metadata does not count. An invalid version sorts before every
// valid one.
func CompareVersions(a, b string) int {
	va, okA := parseSemver(a)
	vb, okB := parseSemver(b)
	switch {
	case !okA && !okB:
		return strings.Compare(a, b)
	case !okA:
		return -1
	case !okB:
		return 1
	}
	for i := range 3 {
		if va.core[i] != vb.core[i] {
			if va.core[i] < vb.core[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(va.pre) == 0 && len(vb.pre) == 0:
		return 0
	case len(va.pre) == 0:
		return 1
	case len(vb.pre) == 0:
		return -1
	}
	for i := 0; i < len(va.pre) && i < len(vb.pre); i++ {
		if c := comparePre(va.pre[i], vb.pre[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(va.pre) < len(vb.pre):
		return -1
	case len(va.pre) > len(vb.pre):
		return 1
	}
	return 0
}

type semver struct {
	core [3]uint64
	pre  []string
}

func parseSemver(s string) (semver, bool) {
	var v semver
	if len(s) > 128 {
		return v, false
	}
	s, build, hasBuild := strings.Cut(s, "+")
	if hasBuild && !identifiers(build, false) {
		return v, false
	}
	core, pre, hasPre := strings.Cut(s, "-")
	if hasPre {
		if !identifiers(pre, true) {
			return v, false
		}
		v.pre = strings.Split(pre, ".")
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		if !numeric(p) {
			return v, false
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return v, false
		}
		v.core[i] = n
	}
	return v, true
}

// identifiers checks dot-separated semver identifiers; in a pre-release a
// numeric identifier has no leading zero.
func identifiers(s string, pre bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		digits := true
		for _, r := range id {
			switch {
			case r >= '0' && r <= '9':
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '-':
				digits = false
			default:
				return false
			}
		}
		if pre && digits && !numeric(id) {
			return false
		}
	}
	return true
}

// numeric is a number with no leading zero.
func numeric(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func comparePre(a, b string) int {
	na, errA := strconv.ParseUint(a, 10, 64)
	nb, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		switch {
		case na < nb:
			return -1
		case na > nb:
			return 1
		}
		return 0
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}
