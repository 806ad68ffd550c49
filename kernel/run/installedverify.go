package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
)

// verifyInstalled checks an installed version directory against its
// signature.json under the runx home's trust store (kernel/registry's
// VerifyInstalled: a key trusted for the publisher's namespace, then the
// exact bytes) and returns the identity the signature states.
func verifyInstalled(home, dir string) (*pkg.RegistryIdentity, error) {
	trust, err := registry.LoadTrust(home)
	if err != nil {
		return nil, err
	}
	rec, err := registry.VerifyInstalled(dir, trust)
	if err != nil {
		return nil, err
	}
	if rec.Kind != registry.KindSkill {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "%s holds the signed %s %s, not a skill", dir, rec.Kind, rec.Ref)
	}
	return &pkg.RegistryIdentity{Registry: rec.Registry, Publisher: rec.Publisher, Name: rec.Name,
		Version: rec.Version, ContentDigest: rec.ContentDigest, TrustTier: string(rec.TrustTier)}, nil
}

// unreadable says why this runx does not read the installed version at
// dir, or "" when it does: a package format newer than it reads, or a
// minimum_runx above it. A version that does not verify is not passed
// over here: a bind refuses it by name.
func (r *skillResolver) unreadable(dir string) string {
	sig := filepath.Join(dir, registry.SignatureFile)
	if fi, err := os.Lstat(sig); err != nil || !fi.Mode().IsRegular() || fi.Size() > registry.MaxRecordBytes {
		return "" // the bind refuses it by name
	}
	raw, err := os.ReadFile(sig)
	if err != nil {
		return ""
	}
	var head struct {
		PackageFormat int `json:"package_format"`
	}
	if json.Unmarshal(raw, &head) == nil && head.PackageFormat > registry.PackageFormat {
		return fmt.Sprintf("package_format %d; this runx reads %d", head.PackageFormat, registry.PackageFormat)
	}
	if _, err := pkg.Load(dir, loadOptions(r.RunxVersion, r.HomeDir)); contract.CodeOf(err) == errcode.MinimumRunxUnsupported {
		return "needs a newer runx: " + contract.BodyOf(err).Message
	}
	return ""
}
