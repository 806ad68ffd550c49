package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// verifyInstalled checks an installed version directory against its
// signature.json under the runx home's trust store and returns the
// identity the signature states.
func verifyInstalled(home, dir string) (*pkg.RegistryIdentity, error) {
	return nil, contract.Errorf(errcode.RegistryUnavailable, "this runx cannot verify %s yet", dir)
}

// unreadable says why this runx does not read the installed version at
// dir, or "" when it does: a package format newer than it reads, or a
// minimum_runx above it. A version that does not verify is not passed
// over here: a bind refuses it by name.
func (r *skillResolver) unreadable(dir string) string {
	raw, err := os.ReadFile(filepath.Join(dir, "signature.json"))
	if err != nil {
		return ""
	}
	var head struct {
		PackageFormat int `json:"package_format"`
	}
	if json.Unmarshal(raw, &head) == nil && head.PackageFormat > readablePackageFormat {
		return fmt.Sprintf("package_format %d; this runx reads %d", head.PackageFormat, readablePackageFormat)
	}
	if _, err := pkg.Load(dir, loadOptions(r.RunxVersion, r.HomeDir)); contract.CodeOf(err) == errcode.MinimumRunxUnsupported {
		return "needs a newer runx: " + contract.BodyOf(err).Message
	}
	return ""
}

// readablePackageFormat is the newest package format this runx reads.
const readablePackageFormat = 1
