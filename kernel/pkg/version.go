package pkg

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// version is a semantic version (MAJOR.MINOR.PATCH with an optional
// pre-release); build metadata is accepted and ignored, as semver says.
type version struct {
	major, minor, patch uint64
	pre                 []string
}

func parseVersion(s string) (version, error) {
	var v version
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

// compare orders versions by semver precedence: a pre-release sorts before
// its release, so runx 0.2.0-dev does not claim to read a 0.2.0 package.
func (v version) compare(o version) int {
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

// scanMinimumRunx finds a top-level `minimum_runx:` line without parsing the
// YAML, so a package written for a newer runx (which may use syntax this one
// cannot parse) is refused by its version rather than by a syntax error.
func scanMinimumRunx(src []byte) (value string, pos Position, found bool) {
	const key = "minimum_runx:"
	at := 0
	if !bytes.HasPrefix(src, []byte(key)) {
		i := bytes.Index(src, []byte("\n"+key))
		if i < 0 {
			return "", Position{}, false
		}
		at = i + 1
	}
	line := src[at:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	rest := strings.TrimSuffix(string(line[len(key):]), "\r")
	if i := strings.Index(rest, " #"); i >= 0 {
		rest = rest[:i]
	}
	col := len(key) + len(rest) - len(strings.TrimLeft(rest, " \t")) + 1
	rest = strings.TrimSpace(rest)
	if len(rest) >= 2 && (rest[0] == '"' || rest[0] == '\'') && rest[len(rest)-1] == rest[0] {
		rest = rest[1 : len(rest)-1]
	}
	return rest, Position{Line: bytes.Count(src[:at], []byte("\n")) + 1, Column: col}, true
}

// checkMinimumRunx refuses a package that needs a newer runx, naming both.
func checkMinimumRunx(file, pkgName, minimum string, pos Position, runx version, runxText string) error {
	need, err := parseVersion(minimum)
	if err != nil {
		return refuseAt(file, pos, errcode.MinimumRunxInvalid, "minimum_runx: %v", err)
	}
	if need.compare(runx) > 0 {
		return refuseAt(file, pos, errcode.MinimumRunxUnsupported,
			"package %q needs runx %s or newer (minimum_runx); this is runx %s", pkgName, minimum, runxText)
	}
	return nil
}
