// Package semver reads semantic versions and orders them by precedence:
// package loading holds a package's minimum_runx to the running runx with
// it. It imports nothing of runx.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a semantic version (MAJOR.MINOR.PATCH with an optional
// pre-release); build metadata is accepted and ignored, as semver says.
type Version struct {
	major, minor, patch uint64
	pre                 []string
}

// Parse reads a version of the form MAJOR.MINOR.PATCH[-pre][+build].
func Parse(s string) (Version, error) {
	var v Version
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("%q is not a version of the form MAJOR.MINOR.PATCH", s)
	}
	nums := [3]*uint64{&v.major, &v.minor, &v.patch}
	for i, p := range parts {
		if p == "" || (len(p) > 1 && p[0] == '0') {
			return v, fmt.Errorf("%q is not a version of the form MAJOR.MINOR.PATCH", s)
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return v, fmt.Errorf("%q is not a version of the form MAJOR.MINOR.PATCH", s)
		}
		*nums[i] = n
	}
	if hasPre {
		if pre == "" {
			return v, fmt.Errorf("%q has an empty pre-release", s)
		}
		v.pre = strings.Split(pre, ".")
	}
	return v, nil
}

// Compare orders versions by semver precedence (-1, 0, +1): a pre-release
// sorts before its release, so runx 0.2.0-dev does not claim to read a
// 0.2.0 package.
func (v Version) Compare(o Version) int {
	for _, c := range [][2]uint64{{v.major, o.major}, {v.minor, o.minor}, {v.patch, o.patch}} {
		if c[0] != c[1] {
			if c[0] < c[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(v.pre) == 0 && len(o.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1
	case len(o.pre) == 0:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(o.pre); i++ {
		if c := comparePreField(v.pre[i], o.pre[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(v.pre), len(o.pre))
}

func comparePreField(a, b string) int {
	an, aErr := strconv.ParseUint(a, 10, 64)
	bn, bErr := strconv.ParseUint(b, 10, 64)
	switch {
	case aErr == nil && bErr == nil:
		if an == bn {
			return 0
		}
		if an < bn {
			return -1
		}
		return 1
	case aErr == nil:
		return -1
	case bErr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
