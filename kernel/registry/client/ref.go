package client

import (
	"regexp"
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
