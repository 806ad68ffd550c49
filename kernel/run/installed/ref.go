package installed

import (
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/errcode"
)

// RegistryRef names a registry skill: publisher/name, at a version or,
// without one, the newest this runx reads.
type RegistryRef struct {
	Publisher string `json:"publisher"`
	Name      string `json:"name"`
	Version   string `json:"version,omitempty"`
}

// String is the ref as written: publisher/name[@version].
func (r RegistryRef) String() string {
	if r.Version == "" {
		return r.Publisher + "/" + r.Name
	}
	return r.Publisher + "/" + r.Name + "@" + r.Version
}

// ParseRegistryRef reads a skill path (without #method) as a registry
// ref: registry:<publisher>/<name>[@version], or the same without the
// prefix. runx/<name> is a core skill and never a registry ref; a path
// (./x, /x) never is either. ok is false for anything else; err is set
// when the path is a registry ref that is malformed.
func ParseRegistryRef(path string) (RegistryRef, bool, error) {
	explicit := strings.HasPrefix(path, "registry:")
	body := strings.TrimPrefix(path, "registry:")
	if !explicit && (strings.HasPrefix(body, "runx/") || strings.HasPrefix(body, ".") || filepath.IsAbs(body)) {
		return RegistryRef{}, false, nil
	}
	name, version, hasVersion := strings.Cut(body, "@")
	publisher, skill, ok := strings.Cut(name, "/")
	if !ok && !explicit {
		return RegistryRef{}, false, nil
	}
	if !explicit && !hasVersion && strings.Contains(skill, "/") {
		return RegistryRef{}, false, nil
	}
	ref := RegistryRef{Publisher: publisher, Name: skill, Version: version}
	switch {
	case !ok || !registryName(publisher) || !registryName(skill):
		return ref, true, contract.Errorf(errcode.RegistryRefInvalid, "%q is not a registry ref: write <publisher>/<name>[@version], each name lowercase letters, digits and -", path)
	case hasVersion:
		if _, err := compareVersions(version, version); err != nil {
			return ref, true, contract.Errorf(errcode.RegistryRefInvalid, "%q names version %q, which is not a semantic version (MAJOR.MINOR.PATCH)", path, version)
		}
	}
	return ref, true, nil
}

// registryName is a publisher or skill name a registry serves: lowercase
// letters, digits and inner hyphens, at most 64 bytes. Nothing else can
// name a directory of the added skills.
func registryName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// compareVersions orders two semantic versions by precedence; a string
// that is not one is an error.
func compareVersions(a, b string) (int, error) {
	va, err := semver.Parse(a)
	if err != nil {
		return 0, err
	}
	vb, err := semver.Parse(b)
	if err != nil {
		return 0, err
	}
	return va.Compare(vb), nil
}
