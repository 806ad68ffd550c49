package installed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// Core materialises core skill name of this runx (runxVersion), held in
// core, into <homeDir>/bundled/<name>/<version>/ on first use. A version
// directory is written once, from the binary's own copy, into a staging
// directory renamed into place.
func Core(core fs.FS, homeDir, runxVersion, name string) (string, error) {
	if core == nil || name == "" || strings.ContainsAny(name, `/\.`) {
		return "", contract.Errorf(errcode.SkillNotFound, "no core skill %q", name)
	}
	if _, err := fs.Stat(core, name+"/SKILL.md"); err != nil {
		return "", contract.Errorf(errcode.SkillNotFound, "no core skill %q in this runx %s", name, runxVersion)
	}
	sub, err := fs.Sub(core, name)
	if err != nil {
		return "", err
	}
	fingerprint, err := fsDigest(sub)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(homeDir, "bundled", name, runxVersion)
	marker := filepath.Join(dst, ".runx-bundled")
	if got, err := os.ReadFile(marker); err == nil && string(got) == fingerprint {
		return dst, nil
	}
	stage, err := os.MkdirTemp(filepath.Dir(dst), "."+name+"-")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
			stage, err = os.MkdirTemp(filepath.Dir(dst), "."+name+"-")
		}
	}
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(stage, sub); err != nil {
		os.RemoveAll(stage)
		return "", err
	}
	if err := os.WriteFile(filepath.Join(stage, ".runx-bundled"), []byte(fingerprint), 0o644); err != nil {
		os.RemoveAll(stage)
		return "", err
	}
	// A copy that differs from this binary's (edited by hand, or another
	// build of the same version) is replaced whole.
	_ = os.RemoveAll(dst)
	if err := os.Rename(stage, dst); err != nil {
		os.RemoveAll(stage)
		if _, statErr := os.Stat(marker); statErr == nil {
			return dst, nil // another process materialised it first
		}
		return "", err
	}
	return dst, nil
}

func fsDigest(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		h.Write([]byte(path + "\x00" + hex.EncodeToString(sum[:]) + "\n"))
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}
