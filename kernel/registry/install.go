package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/errcode"
)

// InstallStatus says what an install did.
type InstallStatus string

// The statuses of an install.
const (
	StatusInstalled InstallStatus = "installed"
	StatusUnchanged InstallStatus = "unchanged" // the same bytes were there already
)

// Result is what an install did, and where.
type Result struct {
	Status        InstallStatus `json:"status"`
	Kind          Kind          `json:"kind"`
	Ref           string        `json:"ref"`
	Publisher     string        `json:"publisher"`
	Name          string        `json:"name"`
	Version       string        `json:"version"`
	ContentDigest string        `json:"content_digest"`
	TrustTier     TrustTier     `json:"trust_tier"`
	Dir           string        `json:"dir"`
}

// gitattributes marks installed files binary to git, so a CRLF checkout
// never changes the bytes their signature covers.
const gitattributes = "* -text\n"

// Install writes the signed package rec with files into the project
// directory projectDir (the .runx directory): a skill at
// added-skills/<publisher>/<name>/<version>/, a connector at
// added-connectors/<name>/<version>/, with rec as signature.json. It
// verifies first; stages the files in a sibling directory; repackages the
// staged files and refuses them unless they are exactly the signed files;
// then renames the version directory into place. A version directory is
// written once: the same bytes again are StatusUnchanged, other bytes are
// refused. A refused install leaves nothing behind.
func Install(projectDir string, rec *Record, files map[string][]byte, t *Trust) (Result, error) {
	if err := Verify(rec, files, t); err != nil {
		return Result{}, err
	}
	target := filepath.Join(projectDir, filepath.FromSlash(installSubdir(rec)))
	res := Result{
		Status: StatusInstalled, Kind: rec.Kind, Ref: rec.Ref, Publisher: rec.Publisher, Name: rec.Name,
		Version: rec.Version, ContentDigest: rec.ContentDigest, TrustTier: rec.TrustTier, Dir: target,
	}
	created, err := mkdirs(projectDir, filepath.Dir(target))
	if err != nil {
		return Result{}, err
	}
	if _, err := os.Lstat(target); err == nil {
		return installed(res, target, rec)
	}
	res, err = stage(res, projectDir, target, rec, files)
	if err != nil {
		removeCreated(created)
	}
	return res, err
}

// stage writes, checks and renames the version directory into place.
func stage(res Result, projectDir, target string, rec *Record, files map[string][]byte) (Result, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(target), "."+filepath.Base(target)+".staging-*")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	if err := writeSynced(tmp, files, executables(rec)); err != nil {
		return Result{}, err
	}
	if err := repackage(tmp, rec); err != nil {
		return Result{}, err
	}
	sig, err := rec.Marshal()
	if err != nil {
		return Result{}, err
	}
	if err := writeSynced(tmp, map[string][]byte{SignatureFile: sig}, nil); err != nil {
		return Result{}, err
	}
	if err := markBinary(filepath.Join(projectDir, topDir(rec.Kind))); err != nil {
		return Result{}, err
	}
	if err := atomicfile.Sync(tmp); err != nil {
		return Result{}, err
	}
	if err := os.Rename(tmp, target); err != nil {
		if _, serr := os.Lstat(target); serr == nil {
			// Another install won the race: judge what it wrote.
			return installed(res, target, rec)
		}
		return Result{}, err
	}
	return res, atomicfile.Sync(filepath.Dir(target))
}

// repackage builds the staged files again and refuses them unless they are
// exactly the files, digest and identity the record signs: what lands is
// what kernel/pkg reads as this package.
func repackage(dir string, rec *Record) error {
	tr, err := readTree(dir, true)
	if err != nil {
		return err
	}
	// BuildFiles leaves out what the package rules exclude by name, so a
	// record naming such a file (.git/config, node_modules/...) repackages
	// as other files and is refused.
	p, err := buildFiles(rec.Kind, tr.files, tr.executable, dir)
	if err != nil {
		return fmt.Errorf("%s: the staged files do not load as a %s: %w", rec.Ref, rec.Kind, err)
	}
	same := p.ContentDigest == rec.ContentDigest && p.Name == rec.Name && p.Version == rec.Version && len(p.Files) == len(rec.Files)
	for i := 0; same && i < len(p.Files); i++ {
		same = p.Files[i] == rec.Files[i]
	}
	if !same {
		return contract.Errorf(errcode.RegistryPackageAltered, "%s: the staged files repackage as %s %s@%s (%s), not the signed package (%s); nothing was installed", rec.Ref, p.Kind, p.Name, p.Version, p.ContentDigest, rec.ContentDigest)
	}
	if what := misstated(p, rec); what != "" {
		return contract.Errorf(errcode.RegistryRecordInvalid, "%s: the signed record states other %s than its files hold; nothing was installed", rec.Ref, what)
	}
	return nil
}

// misstated names what the record says about the package (its description,
// methods, connectors, operations) that the package's own files do not
// say, or "" when it states them as they are: what search and a listing
// show of an installed package is what it holds.
func misstated(p *Package, rec *Record) string {
	switch {
	case p.Description != rec.Description:
		return "description"
	case !slices.Equal(p.Methods, rec.Methods):
		return "methods"
	case !slices.Equal(p.Connectors, rec.Connectors):
		return "connectors"
	case !slices.Equal(p.Operations, rec.Operations):
		return "operations"
	}
	return ""
}

// installed judges a version directory that exists already: unchanged when
// it holds exactly the signed files and a record of the same package,
// refused otherwise. It writes nothing.
func installed(res Result, target string, rec *Record) (Result, error) {
	conflict := func(why string) (Result, error) {
		return Result{}, contract.Errorf(errcode.RegistryVersionConflict, "%s is installed at %s with other bytes (%s); a version directory is written once, so remove it if you mean to replace it", rec.Ref, target, why)
	}
	raw, err := readRecordFile(filepath.Join(target, SignatureFile))
	if err != nil {
		return conflict(err.Error())
	}
	have, err := ParseRecord(raw)
	if err != nil {
		return conflict(err.Error())
	}
	if have.ContentDigest != rec.ContentDigest || have.Ref != rec.Ref || have.Kind != rec.Kind {
		return conflict("its signed record names " + have.Ref + " " + have.ContentDigest)
	}
	tr, err := readTree(target, true)
	if err != nil {
		return conflict(err.Error())
	}
	if err := matchTree(rec, tr); err != nil {
		return conflict(err.Error())
	}
	res.Status = StatusUnchanged
	return res, nil
}

func topDir(k Kind) string {
	if k == KindConnector {
		return AddedConnectorsDir
	}
	return AddedSkillsDir
}

// markBinary writes "* -text" into dir's .gitattributes, keeping any lines
// already there.
func markBinary(dir string) error {
	p := filepath.Join(dir, ".gitattributes")
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, line := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(line) == strings.TrimSpace(gitattributes) {
			return nil
		}
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	return atomicfile.Write(p, append(old, gitattributes...), 0o644)
}

// executables is the set of the record's files whose executable bit is
// set.
func executables(rec *Record) map[string]bool {
	exec := map[string]bool{}
	for _, f := range rec.Files {
		if f.Executable {
			exec[f.Path] = true
		}
	}
	return exec
}

// writeSynced writes files under dir, those exec names executable (0755,
// else 0644), then makes them and the directories holding them durable. The syncs run several at once: the
// file system commits concurrent syncs together, and one after another
// they were most of an install's time (BenchmarkInstall50Files).
func writeSynced(dir string, files map[string][]byte, exec map[string]bool) error {
	if err := checkPaths(files); err != nil {
		return err
	}
	toSync := make([]string, 0, len(files)+4)
	dirs := map[string]bool{}
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		parent := filepath.Dir(full)
		if !dirs[parent] {
			if err := os.MkdirAll(parent, 0o755); err != nil {
				return err
			}
			for d := parent; len(d) > len(dir) && !dirs[d]; d = filepath.Dir(d) {
				dirs[d] = true
				toSync = append(toSync, d)
			}
		}
		f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm(exec[p]))
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		toSync = append(toSync, full)
	}
	return syncAll(toSync)
}

// syncParallel is how many syncs writeSynced keeps in flight.
const syncParallel = 8

// syncAll syncs every path, syncParallel at a time; the first error wins.
func syncAll(paths []string) error {
	work := make(chan string)
	errs := make(chan error, syncParallel)
	var wg sync.WaitGroup
	for range min(syncParallel, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for p := range work {
				if err := atomicfile.Sync(p); err != nil && first == nil {
					first = err
				}
			}
			errs <- first
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// mkdirs makes dir and its missing parents below root (root included),
// refusing a symbolic link on the way, and returns the directories it
// made, deepest last.
func mkdirs(root, dir string) ([]string, error) {
	rel, err := filepath.Rel(filepath.Dir(root), dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("registry: install directory %s is not under %s", dir, root)
	}
	var created []string
	cur := filepath.Dir(root)
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, seg)
		info, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				removeCreated(created)
				return nil, err
			} else if err == nil {
				created = append(created, cur)
			}
		case err != nil:
			removeCreated(created)
			return nil, err
		case info.Mode()&fs.ModeSymlink != 0:
			removeCreated(created)
			return nil, contract.Errorf(errcode.RegistrySymlinkRefused, "%s is a symbolic link; runx installs packages into real directories of the project only", cur)
		case !info.IsDir():
			removeCreated(created)
			return nil, contract.Errorf(errcode.RegistryFileUnsupported, "%s is not a directory", cur)
		}
	}
	return created, nil
}

// removeCreated removes directories mkdirs made, deepest first, each only
// while it is empty.
func removeCreated(created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		os.Remove(created[i])
	}
}
