package registry

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// excludedDirs and excludedFiles are left out of a package by name, at any
// depth: version control, runx's own state, installed JavaScript
// dependencies and Finder's litter change without the package changing.
var (
	excludedDirs  = map[string]bool{".git": true, ".runx": true, "node_modules": true}
	excludedFiles = map[string]bool{".DS_Store": true}
)

// tree is a package directory read into memory.
type tree struct {
	files map[string][]byte
	// executable holds the paths of the files whose executable bit is set.
	executable map[string]bool
	excluded   []string
}

// readTree reads every file under root, refusing what a package may not
// hold and counting the limits as it goes, so an oversized directory is
// refused before it is read whole. strict (an installed copy) leaves out
// only the signed record and .DS_Store files: whatever else is there must
// be signed.
func readTree(root string, strict bool) (*tree, error) {
	t := &tree{files: map[string][]byte{}, executable: map[string]bool{}}
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if err := checkPath(rel); err != nil {
			return err
		}
		// Finder writes .DS_Store into any directory a person opens, an
		// installed package's included; it is never read as the package.
		if why := excludedPath(rel); why != "" && (!strict || rel == SignatureFile || excludedFiles[d.Name()] && d.Type().IsRegular()) {
			if !strict {
				t.excluded = append(t.excluded, why)
			}
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch typ := d.Type(); {
		case typ&fs.ModeSymlink != 0:
			return contract.Errorf(errcode.RegistrySymlinkRefused, "package file %s is a symbolic link: a package holds regular files only, and a link could lead outside it", rel)
		case typ.IsDir():
			return nil
		case !typ.IsRegular():
			return contract.Errorf(errcode.RegistryFileUnsupported, "package file %s is not a regular file", rel)
		}
		if len(t.files) >= MaxFiles {
			return tooMany()
		}
		b, exec, err := readBounded(p, rel)
		if err != nil {
			return err
		}
		if exec {
			t.executable[rel] = true
		}
		if total += int64(len(b)); total > MaxPackageBytes {
			return tooLarge()
		}
		t.files[rel] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.excluded = sortedUnique(t.excluded)
	return t, nil
}

// readBounded reads one regular file, refusing it past MaxFileBytes
// however much it grew since it was listed, and says whether its
// executable bit is set (fileMode).
func readBounded(p, rel string) ([]byte, bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, false, contract.Errorf(errcode.RegistryFileUnsupported, "package file %s is not a regular file", rel)
	}
	exec, err := fileMode(rel, info.Mode())
	if err != nil {
		return nil, false, err
	}
	if info.Size() > MaxFileBytes {
		return nil, false, fileTooLarge(rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > MaxFileBytes {
		return nil, false, fileTooLarge(rel)
	}
	return b, exec, nil
}

// fileMode is the one mode bit a package records of a file: whether it is
// executable, as git records it (its owner may execute it). A setuid,
// setgid or sticky bit is refused by name: a package never carries one,
// and an install never sets one.
func fileMode(rel string, m fs.FileMode) (bool, error) {
	for _, b := range []struct {
		bit         fs.FileMode
		name, chmod string
	}{{fs.ModeSetuid, "setuid", "u-s"}, {fs.ModeSetgid, "setgid", "g-s"}, {fs.ModeSticky, "sticky", "-t"}} {
		if m&b.bit != 0 {
			return false, contract.Errorf(errcode.RegistryFileModeUnsupported, "package file %s has its %s bit set; a package records only whether a file is executable: clear it (chmod %s)", rel, b.name, b.chmod)
		}
	}
	return m.Perm()&0o100 != 0, nil
}

// filePerm is the permission an install writes a file with.
func filePerm(executable bool) fs.FileMode {
	if executable {
		return 0o755
	}
	return 0o644
}

func fileTooLarge(rel string) error {
	return contract.Errorf(errcode.RegistryFileTooLarge, "package file %s is over the %d byte ceiling on one file", rel, MaxFileBytes)
}

func tooMany() error {
	return contract.Errorf(errcode.RegistryTooManyFiles, "the package holds more than %d files", MaxFiles)
}

func tooLarge() error {
	return contract.Errorf(errcode.RegistryPackageTooLarge, "the package is over the %d byte ceiling on a package", MaxPackageBytes)
}

// checkLimits holds files given as bytes to the limits readTree counts.
func checkLimits(files map[string][]byte) error {
	if len(files) > MaxFiles {
		return tooMany()
	}
	var total int64
	for p, b := range files {
		if len(b) > MaxFileBytes {
			return fileTooLarge(p)
		}
		total += int64(len(b))
	}
	if total > MaxPackageBytes {
		return tooLarge()
	}
	return nil
}

// checkPath refuses a package path that could name anything outside the
// package or mean different files on different systems: it must be
// relative, slash-separated, clean, valid UTF-8, with no backslash, colon,
// NUL or control character.
func checkPath(p string) error {
	bad := func(why string) error {
		return contract.Errorf(errcode.RegistryPathInvalid, "package path %q %s; every file of a package sits inside it", p, why)
	}
	switch {
	case p == "":
		return bad("is empty")
	case !utf8.ValidString(p):
		return bad("is not valid UTF-8")
	case strings.ContainsRune(p, '\\'):
		return bad("holds a backslash")
	case strings.HasPrefix(p, "/"):
		return bad("is absolute")
	case strings.ContainsRune(p, ':'):
		return bad("holds a colon (a drive or a stream name)")
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return bad("is not a clean path inside the package")
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return bad("holds a control character")
		}
	}
	return nil
}

// excludedPath says how a path is left out of a package by name ("" when it
// is not): the excluded directory it is under, ending in "/", or the file.
func excludedPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs[:len(segs)-1] {
		if excludedDirs[s] {
			return strings.Join(segs[:i+1], "/") + "/"
		}
	}
	last := segs[len(segs)-1]
	switch {
	case excludedDirs[last]:
		return p + "/"
	case excludedFiles[last], p == SignatureFile:
		return p
	}
	return ""
}

func sortedUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	sort.Strings(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// materialize writes files into a new temporary directory, for kernel/pkg
// to load what a package holds exactly as it would load it from disk.
func materialize(files map[string][]byte) (string, error) {
	dir, err := os.MkdirTemp("", "runx-registry-build-*")
	if err != nil {
		return "", err
	}
	if err := writeFiles(dir, files); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// checkPaths refuses a set of paths any of which checkPath refuses, or
// where one file's path is a directory of another's.
func checkPaths(files map[string][]byte) error {
	folded := make(map[string]string, len(files))
	for p := range files {
		if err := checkPath(p); err != nil {
			return err
		}
		// A case-insensitive file system (macOS, Windows) would write
		// two such files as one.
		if q, ok := folded[strings.ToLower(p)]; ok {
			return contract.Errorf(errcode.RegistryPathInvalid, "package paths %q and %q differ only in case, and name one file on a case-insensitive file system", q, p)
		}
		folded[strings.ToLower(p)] = p
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := files[d]; ok {
				return contract.Errorf(errcode.RegistryPathInvalid, "package path %q is a file and also the directory of %q", d, p)
			}
		}
	}
	return nil
}

// writeFiles writes each file under dir.
func writeFiles(dir string, files map[string][]byte) error {
	if err := checkPaths(files); err != nil {
		return err
	}
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			return fmt.Errorf("write package file %s: %w", p, err)
		}
	}
	return nil
}
