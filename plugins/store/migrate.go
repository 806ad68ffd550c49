package store

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/runxhq/runx/plugins/store/driver/sqlite"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/store/driver"
)

// CapMigrate is `runx data migrate`: an operator's out-of-band migration of
// a legacy SQLite store. Only the kernel's data-migration service calls it,
// with the paths it resolved and held to the workspace in the binding; a
// step cannot name one (a step's binding never carries a migration), so a
// skill that calls it is refused.
const CapMigrate = "store/migrate"

// migrationBinding is what the kernel resolved: absolute paths inside the
// workspace, taken under its exclusive workspace lock.
type migrationBinding struct {
	Migration struct {
		DatabasePath string `json:"database_path"`
		BackupPath   string `json:"backup_path"`
	} `json:"migration"`
}

// migrationRequest is the command line as the operator wrote it; the paths
// in it are only named in the proof, never opened.
type migrationRequest struct {
	Database string `json:"database"`
	Backup   string `json:"backup"`
	Source   string `json:"source"`
}

func migrateDefinition() plugin.Definition {
	return plugin.Definition{
		ID:       CapMigrate,
		Summary:  "Migrate a legacy SQLite event store to the current schema under exclusive access, with a backup and a verified proof.",
		Effect:   plugin.EffectWrite,
		Scopes:   []string{"runx:data:migrate"},
		Approval: plugin.ApprovalRequired,
		// `runx data migrate` runs it; it rewrites the database and writes
		// the backup, both named workspace-relative.
		Roles: []string{plugin.RoleDataMigrate},
		PathInputs: []plugin.PathInput{
			{Pointer: "/database", Role: plugin.PathWrite},
			{Pointer: "/backup", Role: plugin.PathWrite},
		},
		// Migrating a migrated store proves it current and changes nothing.
		Idempotent:   true,
		InputSchema:  json.RawMessage(`{"type":"object","required":["database","source"],"properties":{"database":{"type":"string"},"backup":{"type":"string"},"source":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"schema":{"const":"` + sqlite.ProofSchema + `"}}}`),
	}
}

// migrate runs one migration and answers its proof.
func (p *Plugin) migrate(ctx context.Context, call *plugin.Call) *plugin.Result {
	var b migrationBinding
	if err := json.Unmarshal(call.Context.Binding, &b); err != nil || b.Migration.DatabasePath == "" || b.Migration.BackupPath == "" {
		return plugin.Refused(errcode.StoreMigrationBindingMissing, "store/migrate runs only as `runx data migrate`, which resolves the database and backup paths")
	}
	var req migrationRequest
	if err := json.Unmarshal(call.Input, &req); err != nil {
		return plugin.Refused(errcode.StoreRequestInvalid, "the migration's inputs are not a migration request: "+err.Error())
	}
	proof, err := sqlite.Migrate(ctx, sqlite.MigrateConfig{
		Path: b.Migration.DatabasePath, BackupPath: b.Migration.BackupPath, Source: req.Source,
		DatabaseName: req.Database, BackupName: req.Backup,
	})
	var de *driver.Error
	if err != nil && !errors.As(err, &de) {
		return plugin.Failed(errcode.DataMigrationFailed, err.Error())
	}
	if err != nil {
		status := plugin.StatusRefused
		switch de.Code {
		case errcode.DataMigrationUnverified, errcode.ProviderUnavailable, errcode.StoreCorrupt, errcode.AmbiguousCommit:
			status = plugin.StatusFailed
		}
		return &plugin.Result{Status: status, Code: de.Code, Message: de.Message}
	}
	out, err := json.Marshal(proof)
	if err != nil {
		return plugin.Failed(errcode.StorePacketInvalid, err.Error())
	}
	return plugin.OK(out, nil)
}
