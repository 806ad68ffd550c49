package registry

import (
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// ConnectorVerifier is the pkg.InstalledVerifier of the runx home home:
// an installed connector's directory verifies (VerifyInstalled) under the
// home's trust store, read when a registry-installed connector is met, and
// its signed record must be a connector's. pkg.LoadAddedConnector then
// holds the connector it reads to the digests the record states, so an
// installed connector edited in place is refused at its next use.
func ConnectorVerifier(home string) pkg.InstalledVerifier {
	return func(dir string) (pkg.SignedConnector, error) {
		t, err := LoadTrust(home)
		if err != nil {
			return pkg.SignedConnector{}, err
		}
		rec, err := VerifyInstalled(dir, t)
		if err != nil {
			return pkg.SignedConnector{}, err
		}
		if rec.Kind != KindConnector || len(rec.Connectors) != 1 {
			return pkg.SignedConnector{}, contract.Errorf(errcode.RegistryRecordInvalid, "%s holds the signed %s %s, not a connector", dir, rec.Kind, rec.Ref)
		}
		b := rec.Connectors[0]
		return pkg.SignedConnector{Version: rec.Version, ManifestDigest: b.ManifestDigest, ConnectorDigest: b.ConnectorDigest}, nil
	}
}

// LoadAddedConnector reads the connector name the project directory
// projectDir added (pkg.LoadAddedConnector), verifying one a registry
// installed under the trust store of the runx home home.
func LoadAddedConnector(projectDir, home, name, version string) (*pkg.Connector, error) {
	return pkg.LoadAddedConnector(projectDir, name, version, ConnectorVerifier(home))
}
