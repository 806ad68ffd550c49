package pkg

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/gowebpki/jcs"
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
	type file struct {
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
	}
	files := []file{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return refuse(CodePackageSymlinkRefused, "package file %s is a symbolic link; packages hold regular files only", rel)
		case d.IsDir():
			if p != dir && (d.Name() == ".git" || d.Name() == ".runx") {
				return filepath.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return refuse(CodePackageFileUnsupported, "package file %s is not a regular file", rel)
		}
		sum, err := cachedFileDigest(p)
		if err != nil {
			return err
		}
		files = append(files, file{Path: rel, SHA256: sum})
		return nil
	})
	if err != nil {
		return "", err
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
	return contentDigest(canon), nil
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
