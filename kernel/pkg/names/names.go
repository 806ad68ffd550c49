// Package names holds the syntax of the names run.yaml and connector.yaml
// use: method, step and input names, capability ids and operation refs,
// environment variable names, and package-relative paths.
package names

import (
	"path"
	"strings"
)

// IsName reports whether s can name a method, step or input: it appears in
// refs ("pkg#method"), addresses ("step/2/retry") and paths ("$input.x"), so
// it holds none of '#', '/', '.' or spaces.
func IsName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		case (r >= '0' && r <= '9') || r == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// IsCapabilityID accepts ids like fs.read and store/events.append.
func IsCapabilityID(s string) bool {
	if s == "" {
		return false
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == "" {
			return false
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				return false
			}
		}
	}
	return true
}

// SplitOperationRef splits <connector>/<operation>; a connector may itself be
// namespaced (fixture/forge/issue.read), so the operation is the last segment.
func SplitOperationRef(ref string) (connector, operation string, ok bool) {
	i := strings.LastIndexByte(ref, '/')
	if i <= 0 || i == len(ref)-1 || !IsCapabilityID(ref) {
		return "", "", false
	}
	return ref[:i], ref[i+1:], true
}

// IsEnvName accepts portable environment variable names.
func IsEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_' || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// CleanModulePath returns a module path in normal form, or "" when it is not
// a package-relative .js/.mjs path: modules are bundled from the package, so
// nothing may point outside it.
func CleanModulePath(p string) string {
	if p == "" || strings.ContainsAny(p, "\\\x00") || path.IsAbs(p) || (len(p) > 1 && p[1] == ':') {
		return ""
	}
	clean := path.Clean(p)
	if clean != strings.TrimPrefix(p, "./") || clean == ".." || strings.HasPrefix(clean, "../") {
		return ""
	}
	if !strings.HasSuffix(clean, ".js") && !strings.HasSuffix(clean, ".mjs") {
		return ""
	}
	return clean
}

// IsPackageRelative reports whether p is a normalized relative slash path
// that stays inside its package.
func IsPackageRelative(p string) bool {
	return p != "" && !strings.ContainsAny(p, "\\\x00") && !path.IsAbs(p) &&
		path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../") && p != "."
}

// HasSpace reports whether s holds a space, tab or line break.
func HasSpace(s string) bool { return strings.ContainsAny(s, " \t\r\n") }
