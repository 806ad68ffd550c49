package client

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// The kinds of package a registry holds.
const (
	KindSkill     = "skill"
	KindConnector = "connector"
)

// Ref names a package in a registry: a skill is publisher/name, a
// connector its name (which may hold one '/'). Version is empty for "the
// newest this runx reads". Kind is empty when the ref could be either (a
// name with one '/'): the registry is asked for a skill first.
type Ref struct {
	Kind    string
	Name    string // skill: "acme/weather"; connector: "google/calendar"
	Version string
}

var (
	refSegment = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	refVersion = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]{0,127}$`)
)

// ParseRef reads <publisher>/<name>[@version] or a connector's
// <name>[@version].
func ParseRef(s string) (Ref, error) {
	name, version, hasVersion := strings.Cut(s, "@")
	r := Ref{Name: name, Version: version}
	if hasVersion && !refVersion.MatchString(version) {
		return r, contract.Errorf(errcode.RegistryRefInvalid, "%q: the version after @ is not a version", s)
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if !refSegment.MatchString(p) || strings.Contains(p, "..") {
			return r, contract.Errorf(errcode.RegistryRefInvalid, "%q is not <publisher>/<name>[@version]: each part is letters, digits, '.', '-' and '_'", s)
		}
	}
	switch len(parts) {
	case 1:
		r.Kind = KindConnector
	case 2:
	default:
		return r, contract.Errorf(errcode.RegistryRefInvalid, "%q is not <publisher>/<name>[@version]", s)
	}
	return r, nil
}

// Publisher is a skill ref's namespace (the part before '/').
func (r Ref) Publisher() string {
	p, _, _ := strings.Cut(r.Name, "/")
	return p
}

func (r Ref) String() string {
	if r.Version == "" {
		return r.Name
	}
	return r.Name + "@" + r.Version
}

// path is the API path of the package: /v1/skills/p/n or /v1/connectors/...
func (r Ref) path(kind string) string {
	parts := strings.Split(r.Name, "/")
	for i, p := range parts {
		parts[i] = seg(p)
	}
	return "/v1/" + kind + "s/" + strings.Join(parts, "/")
}

// versionPath is the API path of one version's record or files.
func (r Ref) versionPath(kind, version, leaf string) string {
	return r.path(kind) + "/versions/" + seg(version) + "/" + leaf
}

// semver is the precedence of a MAJOR.MINOR.PATCH[-pre][+build] version;
// ok is false for anything else (a connector's sha- version).
type semver struct {
	n   [3]uint64
	pre []string
}

func parseSemver(s string) (semver, bool) {
	var v semver
	s, _, _ = strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 || hasPre && pre == "" {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || p == "" || len(p) > 1 && p[0] == '0' {
			return v, false
		}
		v.n[i] = n
	}
	if hasPre {
		v.pre = strings.Split(pre, ".")
	}
	return v, true
}

// compare orders by semver precedence: a pre-release before its release.
func (v semver) compare(o semver) int {
	for i := range v.n {
		if v.n[i] != o.n[i] {
			if v.n[i] < o.n[i] {
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
		a, b := v.pre[i], o.pre[i]
		an, aerr := strconv.ParseUint(a, 10, 64)
		bn, berr := strconv.ParseUint(b, 10, 64)
		switch {
		case aerr == nil && berr == nil && an != bn:
			if an < bn {
				return -1
			}
			return 1
		case aerr == nil && berr != nil:
			return -1
		case aerr != nil && berr == nil:
			return 1
		case a != b:
			if a < b {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(v.pre) < len(o.pre):
		return -1
	case len(v.pre) > len(o.pre):
		return 1
	}
	return 0
}
