package pkg

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"

	"github.com/gowebpki/jcs"

	"github.com/runxhq/runx/sdk/errcode"
)

// packageDigestSchema versions the digest's input, so a change to what it
// covers can never collide with digests made the old way.
const packageDigestSchema = "runx.package-digest.v1"

// PackageDigest returns the digest that binds a run to a package's exact
// files: sha256:<hex> over the canonical JSON (RFC 8785) of
//
//	{"schema": "runx.package-digest.v1",
//	 "files": [{"path": <slash-separated relative path>, "sha256": "sha256:<hex>"}, ...]}
//
// with files sorted by path. Every regular file counts except those under a
// directory named .git or .runx (version control and runx's own state change
// without the package changing). A symbolic link is refused: what it points at
// could change under the digest, and it could lead outside the package.
func PackageDigest(dir string) (string, error) {
	return packageDigest(dir, nil)
}

// installedDigest is the package digest of a connector a registry
// installed, over the files its package holds as a connector: the
// package's runx.package.json and signature.json at its root are the
// registry's, not the connector's, and a .DS_Store Finder left is no
// file of it (the registry's install check allows one too).
func installedDigest(dir string) (string, error) {
	return packageDigest(dir, func(rel string) bool {
		return rel == RegistryManifestFile || rel == RegistrySignatureFile || path.Base(rel) == ".DS_Store"
	})
}

// packageDigest is PackageDigest leaving out the files skip names; only
// the whole digest (skip nil) is remembered with the listing.
func packageDigest(dir string, skip func(rel string) bool) (string, error) {
	type file struct {
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
	}
	snap, err := listTree(dir)
	if err != nil {
		return "", err
	}
	if d := snap.digest.Load(); d != nil && skip == nil {
		return *d, nil
	}
	files := []file{}
	for _, e := range snap.entries {
		switch {
		case e.Type&fs.ModeSymlink != 0:
			return "", refuse(errcode.PackageSymlinkRefused, "package file %s is a symbolic link; packages hold regular files only", e.Rel)
		case e.Type.IsDir(), skip != nil && skip(e.Rel):
			continue
		case !e.Type.IsRegular():
			return "", refuse(errcode.PackageFileUnsupported, "package file %s is not a regular file", e.Rel)
		}
		sum, err := cachedFileDigest(e.Path)
		if err != nil {
			return "", err
		}
		files = append(files, file{Path: e.Rel, SHA256: sum})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	raw, err := json.Marshal(struct {
		Schema string `json:"schema"`
		Files  []file `json:"files"`
	}{packageDigestSchema, files})
	if err != nil {
		return "", err
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return "", fmt.Errorf("canonicalize package digest input: %w", err)
	}
	digest := contentDigest(canon)
	// Remembered with the listing it was taken over (only a listing that
	// is itself remembered): every file's stamp was unchanged when it was
	// hashed or served, so the digest is of the bytes the stamps name.
	if skip == nil {
		snap.digest.Store(&digest)
	}
	return digest, nil
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
