package run

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// Codes of the refusals finding the project makes. A .runx is runx's state:
// adopting one another user made, or one that is not runx's, would write a
// run's records into a directory someone else controls (or read theirs).

// ProjectIdentityFile is the file runx writes into every .runx it makes (or
// adopts from an earlier runx), saying the directory is runx's project state.
const ProjectIdentityFile = "runx-project"

const projectIdentity = "runx.project.v1\n"

// projectNames are the entries runx itself writes in a project directory: a
// .runx without the identity file is recognisably runx's when it holds one.
var projectNames = []string{
	ProjectIdentityFile, "state.sqlite", "state.sqlite-wal", "state.sqlite-shm", "state.sqlite-journal",
	"receipts", "journal", "locks", "plugins", "plugins.lock", "plugins.lock.tmp",
	"added-skills", "added-connectors", "data-sources.json", "data", "store",
	"artifacts", "processes", "test", ".gitattributes",
	"workspace.lock", "workspace.lock.turnstile", "workspace.lock.holders",
}

// FindWorkspace is the workspace a directory belongs to: the nearest
// directory at or above dir marked as a project, else dir itself. A project
// is marked by a .git, a skills/ directory, or a .runx that is runx's own
// for this user (see checkProject; never the runx home). The walk stops at
// the first mark, so a .runx above a marked project is never reached, and a
// .runx that is not this user's runx state marks nothing. So a bare skill
// name, a preset and the project state resolve the same from any
// subdirectory, and no stray .runx is made inside one; a repository checked
// out inside another is a workspace of its own.
func FindWorkspace(dir, homeDir string) string {
	dir = filepath.Clean(dir)
	home := filepath.Clean(homeDir)
	for cur := dir; ; {
		if project := filepath.Join(cur, ".runx"); project != home && checkProject(project) == nil {
			return cur
		}
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			return cur
		}
		if info, err := os.Stat(filepath.Join(cur, "skills")); err == nil && info.IsDir() {
			return cur
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return dir
		}
		cur = parent
	}
}

// checkProject says whether the .runx at path is runx's own for this user:
// a real directory (not a link), owned by this user, carrying the identity
// file or, made before the identity file was, empty or holding something
// runx writes there (its state, a clone's committed added-skills, a
// plugin placed in plugins/ beside that plugin's own files). One holding
// only what runx never writes is another program's. A missing one is
// fs.ErrNotExist.
func checkProject(path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsDir() {
		return contract.Errorf(errcode.ProjectNotDirectory, "%s is not a directory runx made: runx keeps its state only in a real .runx directory; remove it, or set RUNX_PROJECT_DIR to name the project directory", path)
	}
	if uid, ok := ownerOf(info); ok && uid != os.Getuid() {
		return contract.Errorf(errcode.ProjectForeignOwner, "%s belongs to another user (uid %d), so runx does not adopt it as this user's project; run in your own directory, or set RUNX_PROJECT_DIR to name a project directory explicitly", path, uid)
	}
	if _, err := os.Lstat(filepath.Join(path, ProjectIdentityFile)); err == nil {
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	for _, e := range entries {
		if slices.Contains(projectNames, e.Name()) {
			return nil
		}
	}
	return contract.Errorf(errcode.ProjectUnrecognized, "%s is not recognisably runx's project state: it has no %s and holds nothing runx writes (%q); remove or rename it, or set RUNX_PROJECT_DIR to name a project directory explicitly", path, ProjectIdentityFile, entries[0].Name())
}

// MarkProject makes dir's .runx runx's own project directory, creating it
// with the identity file as runx does when it first opens a project there:
// finding the project from dir, or from below it, then stops at dir.
func MarkProject(dir string) error {
	return claimProject(filepath.Join(dir, ".runx"), false)
}

// claimProject makes the project directory runx's before anything is
// written there: a missing one is created with the identity file; one found
// (not named by RUNX_PROJECT_DIR) is used only when checkProject recognises
// it, and an earlier runx's then gets the identity file. One the host named
// explicitly is the host's choice and is used as it is.
func claimProject(path string, explicit bool) error {
	_, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(path, 0o755); err != nil {
			return err
		}
		return writeIdentity(path)
	case err != nil:
		return err
	case explicit:
		return nil
	}
	if err := checkProject(path); err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(path, ProjectIdentityFile)); errors.Is(err, fs.ErrNotExist) {
		return writeIdentity(path)
	}
	return nil
}

// writeIdentity writes the identity file once; a concurrent runx writing the
// same bytes first is no failure.
func writeIdentity(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, ProjectIdentityFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(projectIdentity); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
