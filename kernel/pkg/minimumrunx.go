package pkg

import (
	"bytes"
	"strings"

	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/errcode"
)

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
func checkMinimumRunx(file, pkgName, minimum string, pos Position, runx semver.Version, runxText string) error {
	need, err := semver.Parse(minimum)
	if err != nil {
		return refuseAt(file, pos, errcode.MinimumRunxInvalid, "minimum_runx: %v", err)
	}
	if need.Compare(runx) > 0 {
		return refuseAt(file, pos, errcode.MinimumRunxUnsupported,
			"package %q needs runx %s or newer (minimum_runx); this is runx %s", pkgName, minimum, runxText)
	}
	return nil
}
