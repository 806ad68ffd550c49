package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/runxhq/runx/kernel/pkg"
)

// Verified remembers the registry-installed connectors one run verified,
// each by its name and the digest of every byte under its directory as it
// is now. A lookup still reads and hashes those bytes, so a copy edited
// while the run runs misses and is verified again (and refused); bytes it
// verified already skip the trust store, the signature check and the
// manifest's parse, which were most of a lookup's cost (docs/PERFORMANCE.md,
// "Installed connectors verified once a run"). A run makes its own and
// drops it at its end, so nothing verified outlives the run: the next run
// reads the trust store again. The zero value is ready; a nil one
// remembers nothing.
type Verified struct{ m sync.Map }

// LoadAddedConnector is the package's LoadAddedConnector, remembered for
// the run. Only a connector a registry installed is remembered, and only
// when its bytes did not change while it was loaded.
func (v *Verified) LoadAddedConnector(projectDir, home, name, version string) (*pkg.Connector, error) {
	if v == nil {
		return LoadAddedConnector(projectDir, home, name, version)
	}
	base := filepath.Join(projectDir, AddedConnectorsDir, filepath.FromSlash(name))
	before, ok := fingerprint(base)
	key := name + "@" + version + " " + before
	if ok {
		if c, hit := v.m.Load(key); hit {
			return c.(*pkg.Connector), nil
		}
	}
	c, err := LoadAddedConnector(projectDir, home, name, version)
	if err != nil || c == nil || c.RegistryVersion == "" || !ok {
		return c, err
	}
	if after, same := fingerprint(base); same && after == before {
		v.m.Store(key, c)
	}
	return c, nil
}

// errUnfingerprinted stops a fingerprint past its bounds.
var errUnfingerprinted = errors.New("registry: not fingerprinted")

// fingerprint digests everything under dir: each entry's path and mode,
// and each regular file's bytes. ok is false where it cannot (no such
// directory, an entry it cannot read, more than a package's bounds): the
// caller then verifies in full, which refuses what must be refused.
func fingerprint(dir string) (string, bool) {
	h := sha256.New()
	var total int64
	entries := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entries++; entries > 2*MaxFiles {
			return errUnfingerprinted
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%q %s %d\n", filepath.ToSlash(rel), info.Mode(), info.Size())
		if !info.Mode().IsRegular() {
			return nil
		}
		if total += info.Size(); total > MaxPackageBytes {
			return errUnfingerprinted
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(h, io.LimitReader(f, info.Size()+1))
		return err
	})
	if err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
