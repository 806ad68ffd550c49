package registry

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// VerifySignature checks the record is well formed and signed by a key the
// trust store holds for its registry and its publisher namespace.
func VerifySignature(rec *Record, t *Trust) error {
	if rec == nil {
		return contract.Errorf(errcode.RegistryRecordInvalid, "no signed record")
	}
	if err := rec.Check(); err != nil {
		return err
	}
	pub, err := t.keyFor(rec)
	if err != nil {
		return err
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(rec.Signature.Value)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return contract.Errorf(errcode.RegistrySignatureInvalid, "the signature of %s is not a %d-byte ed25519 signature in standard base64", rec.Ref, ed25519.SignatureSize)
	}
	msg, err := SigningBytes(rec)
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, msg, sig) {
		return contract.Errorf(errcode.RegistrySignatureInvalid, "the signature of %s does not verify under key %s: the record was changed after it was signed", rec.Ref, rec.Signature.KeyID)
	}
	return nil
}

// Verify checks the record's signature (VerifySignature), then that files
// are exactly the files it names: the same paths, and bytes of the digest
// and size it states.
func Verify(rec *Record, files map[string][]byte, t *Trust) error {
	if err := VerifySignature(rec, t); err != nil {
		return err
	}
	return matchFiles(rec, files)
}

// matchFiles checks files are exactly the record's.
func matchFiles(rec *Record, files map[string][]byte) error {
	altered := func(format string, args ...any) error {
		return contract.Errorf(errcode.RegistryPackageAltered, rec.Ref+": "+format, args...)
	}
	if len(files) != len(rec.Files) {
		var extra []string
		for p := range files {
			if findFile(rec.Files, p) < 0 {
				extra = append(extra, p)
			}
		}
		sort.Strings(extra)
		if len(extra) > 0 {
			return altered("holds %s, which the signed record does not name", strings.Join(extra, ", "))
		}
	}
	for _, f := range rec.Files {
		b, ok := files[f.Path]
		if !ok {
			return altered("lacks %s, which the signed record names", f.Path)
		}
		if int64(len(b)) != f.Size || canon.DigestBytes(b) != f.Digest {
			return altered("%s is not the file the signed record names (%s)", f.Path, f.Digest)
		}
	}
	return nil
}

// matchTree checks a directory read from disk is exactly the record's
// files: their bytes (matchFiles) and which of them are executable.
func matchTree(rec *Record, tr *tree) error {
	if err := matchFiles(rec, tr.files); err != nil {
		return err
	}
	for _, f := range rec.Files {
		if tr.executable[f.Path] != f.Executable {
			state := map[bool]string{true: "executable", false: "not executable"}
			return contract.Errorf(errcode.RegistryPackageAltered, "%s: %s is %s; the signed record names it %s", rec.Ref, f.Path, state[tr.executable[f.Path]], state[f.Executable])
		}
	}
	return nil
}

// VerifyInstalled verifies the installed package in dir against its
// signature.json and the trust store: what a run calls at every bind. The
// directory must be where the record installs (…/<publisher>/<name>/<version>
// or …/<name>/<version>) and hold exactly the signed files.
func VerifyInstalled(dir string, t *Trust) (*Record, error) {
	raw, err := readRecordFile(filepath.Join(dir, SignatureFile))
	if err != nil {
		return nil, err
	}
	rec, err := ParseRecord(raw)
	if err != nil {
		return nil, err
	}
	if err := VerifySignature(rec, t); err != nil {
		return nil, err
	}
	if want := filepath.FromSlash(installSubdir(rec)); !strings.HasSuffix(filepath.Clean(dir), string(filepath.Separator)+want) {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "%s holds the signed record of %s, which installs at %s", dir, rec.Ref, want)
	}
	tr, err := readTree(dir, true)
	if err != nil {
		return nil, err
	}
	if err := matchTree(rec, tr); err != nil {
		return nil, err
	}
	return rec, nil
}

// readRecordFile reads signature.json, bounded; none is an unsigned copy.
func readRecordFile(p string) ([]byte, error) {
	info, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, contract.Errorf(errcode.RegistrySignatureInvalid, "%s holds no %s: an installed package is read only as its registry signed it", filepath.Dir(p), SignatureFile)
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "%s is not a regular file", p)
	}
	if info.Size() > MaxRecordBytes {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "%s is over %d bytes", p, MaxRecordBytes)
	}
	return os.ReadFile(p)
}

// installSubdir is where under the project directory a record installs.
func installSubdir(rec *Record) string {
	if rec.Kind == KindConnector {
		return AddedConnectorsDir + "/" + rec.Name + "/" + rec.Version
	}
	return AddedSkillsDir + "/" + rec.Publisher + "/" + rec.Name + "/" + rec.Version
}
