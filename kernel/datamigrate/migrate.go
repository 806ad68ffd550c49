package datamigrate

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/wslock"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Request is `runx data migrate`: the out-of-band migration of a legacy
// SQLite event store (governed-data-plane.md, "Continuation and offline
// migration").
type Request struct {
	// Database is the store file, relative to the workspace.
	Database string
	// Source is the data_source_ref given to formerly unscoped events.
	Source string
	// Backup is where the backup goes, relative to the workspace; empty puts
	// it beside the database, named by the time (DefaultBackupName).
	Backup string
}

// Migration constants: the proof the data.migrate capability answers.
const (
	MigrationProofSchema = "runx.data.migration_proof.v1"
	migrationMaxAnswer   = 1 << 20
)

// Kernel is what a migration takes of the kernel that runs it: the
// workspace its paths are held to, the project whose workspace lock it
// takes, the lock hold this process was started under, the clock, and the
// plugin host that answers sdk.RoleDataMigrate. kernel/run's Kernel gives
// it (kernel/run/migrateport.go).
type Kernel struct {
	Workspace, ProjectDir string
	LockToken             string
	Clock                 func() time.Time
	Host                  *host.Supervisor
}

// Migrate migrates a store file and returns the store plugin's typed proof,
// runx.data.migration_proof.v1, after checking its result_digest.
//
// The kernel's part is authority over the filesystem: both paths are held
// to the workspace (symlinks resolved), and the workspace lock is taken
// exclusively for the whole migration, so no step of any runx run on this
// workspace starts a command or a file change meanwhile. The plugin takes
// SQLite's own exclusive lock on the file, which keeps out every other
// connection to it. A migration in flight runs to its end when the command
// is asked to stop: it stops only at its commit point, the rename.
func Migrate(ctx context.Context, k Kernel, req Request) (json.RawMessage, error) {
	if req.Database == "" {
		return nil, contract.Errorf(errcode.DataMigrationDatabaseRequired, "name the store file to migrate with --database <workspace-relative path>")
	}
	if req.Source == "" {
		return nil, contract.Errorf(errcode.DataMigrationSourceRequired, "name the data source formerly unscoped events belong to with --source <ref>")
	}
	db, err := workspaceFile(k.Workspace, req.Database, "--database")
	if err != nil {
		return nil, err
	}
	if req.Backup == "" {
		req.Backup = DefaultBackupName(db.rel, k.Clock())
	}
	backup, err := workspaceFile(k.Workspace, req.Backup, "--backup")
	if err != nil {
		return nil, err
	}
	hold, err := wslock.AcquireJoining(ctx, k.ProjectDir, wslock.Exclusive, k.LockToken)
	if err != nil {
		return nil, err
	}
	defer hold.Release()
	input, err := canon.Canonical(map[string]string{"database": db.rel, "backup": backup.rel, "source": req.Source})
	if err != nil {
		return nil, err
	}
	binding, err := json.Marshal(map[string]any{"migration": map[string]string{"database_path": db.abs, "backup_path": backup.abs}})
	if err != nil {
		return nil, err
	}
	capability, err := k.Host.RoleCapability(ctx, sdk.RoleDataMigrate)
	if err != nil {
		return nil, err
	}
	res, _, err := k.Host.Invoke(context.WithoutCancel(ctx), &sdk.Call{Capability: capability.Definition.ID, Input: input, Context: sdk.Context{
		CallID: "data-migrate", Attempt: 1, WorkspaceRoot: k.Workspace, Binding: binding, Clock: k.Clock(),
	}}, migrationMaxAnswer)
	if err != nil {
		return nil, err
	}
	if res.Status != sdk.StatusOK {
		return nil, &contract.Error{Code: res.Code, Message: res.Message}
	}
	if err := checkMigrationProof(res.Output); err != nil {
		return nil, err
	}
	return json.RawMessage(res.Output), nil
}

// DefaultBackupName puts a backup beside its database, named by the UTC
// second it was asked for: <database>.pre-migration-<YYYYMMDDTHHMMSSZ>.sqlite.
func DefaultBackupName(database string, now time.Time) string {
	return database + ".pre-migration-" + now.UTC().Format("20060102T150405Z") + ".sqlite"
}

// checkMigrationProof holds the plugin's answer to its own contract: the
// proof schema, and a result_digest that is the digest of the rest.
func checkMigrationProof(raw []byte) error {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return contract.Errorf(errcode.DataMigrationProofInvalid, "the store plugin answered a migration with output that is not a JSON object")
	}
	var schema, digest string
	json.Unmarshal(doc["schema"], &schema)
	json.Unmarshal(doc["result_digest"], &digest)
	delete(doc, "result_digest")
	rest, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	canonical, err := canon.CanonicalJSON(rest)
	if err != nil || schema != MigrationProofSchema || canon.DigestBytes(canonical) != digest {
		return contract.Errorf(errcode.DataMigrationProofInvalid, "the store plugin's migration proof is not a %s document with a matching result_digest", MigrationProofSchema)
	}
	return nil
}

// workspacePath is a path held to the workspace: where to open it, and how
// the operator names it (relative, with '/').
type workspacePath struct {
	abs, rel string
}

// workspaceFile resolves a workspace-relative path (an absolute one is
// accepted when it lies inside the workspace) and refuses one that leaves
// the workspace, lexically or through a symlink. A path that does not exist
// yet is held by its nearest existing ancestor.
func workspaceFile(workspace, p, flag string) (workspacePath, error) {
	outside := func() (workspacePath, error) {
		return workspacePath{}, contract.Errorf(errcode.DataMigrationPathOutsideWorkspace,
			"%s %s leaves the workspace: give a path inside %s, relative to it", flag, p, workspace)
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return workspacePath{}, err
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(workspace, abs)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(workspace, abs)
	if err != nil || !inside(rel) {
		// An absolute path may name the workspace through a symlinked root.
		if rel, err = filepath.Rel(root, abs); err != nil || !inside(rel) {
			return outside()
		}
	}
	if rel == "." {
		return outside()
	}
	real, err := resolveExisting(filepath.Join(root, rel), flag)
	if err != nil {
		return workspacePath{}, err
	}
	if r, err := filepath.Rel(root, real); err != nil || !inside(r) || r == "." {
		return outside()
	}
	return workspacePath{abs: real, rel: filepath.ToSlash(rel)}, nil
}

func inside(rel string) bool {
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// path and appends the rest. A dangling symlink is refused: whatever was
// written through it would land where its target points.
func resolveExisting(path, flag string) (string, error) {
	var rest []string
	for cur := path; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if _, lerr := os.Lstat(cur); !errors.Is(err, fs.ErrNotExist) || lerr == nil {
			return "", contract.Errorf(errcode.DataMigrationPathInvalid, "%s: %s cannot be resolved inside the workspace: %v", flag, cur, err)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}
