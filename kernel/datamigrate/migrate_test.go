package datamigrate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/canon"
)

func TestWorkspaceFile(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".runx", "data"), 0o755)
	os.WriteFile(filepath.Join(ws, ".runx", "data", "events.sqlite"), nil, 0o644)
	os.Symlink(outside, filepath.Join(ws, "escape"))
	os.Symlink(filepath.Join(outside, "nothing-yet.sqlite"), filepath.Join(ws, "dangling.sqlite"))
	os.Symlink(filepath.Join(ws, ".runx", "data"), filepath.Join(ws, "data-link"))
	realWS, _ := filepath.EvalSymlinks(ws)

	for _, tc := range []struct {
		path, rel, abs string
	}{
		{".runx/data/events.sqlite", ".runx/data/events.sqlite", filepath.Join(realWS, ".runx", "data", "events.sqlite")},
		{"./.runx/data/../data/events.sqlite", ".runx/data/events.sqlite", filepath.Join(realWS, ".runx", "data", "events.sqlite")},
		{filepath.Join(ws, ".runx", "data", "events.sqlite"), ".runx/data/events.sqlite", filepath.Join(realWS, ".runx", "data", "events.sqlite")},
		{"backups/new/events.bak", "backups/new/events.bak", filepath.Join(realWS, "backups", "new", "events.bak")},
		{"data-link/events.sqlite", "data-link/events.sqlite", filepath.Join(realWS, ".runx", "data", "events.sqlite")},
	} {
		got, err := workspaceFile(ws, tc.path, "--database")
		if err != nil || got.rel != tc.rel || got.abs != tc.abs {
			t.Errorf("%s: got %+v %v, want %s %s", tc.path, got, err, tc.rel, tc.abs)
		}
	}
	for path, code := range map[string]string{
		"../events.sqlite":                      "data_migration_path_outside_workspace",
		".runx/../../events.sqlite":             "data_migration_path_outside_workspace",
		filepath.Join(outside, "events.sqlite"): "data_migration_path_outside_workspace",
		"escape/events.sqlite":                  "data_migration_path_outside_workspace",
		".":                                     "data_migration_path_outside_workspace",
		"dangling.sqlite":                       "data_migration_path_invalid",
		".runx/data/events.sqlite/inside-a-file.db": "data_migration_path_invalid",
	} {
		if _, err := workspaceFile(ws, path, "--backup"); string(contract.CodeOf(err)) != code {
			t.Errorf("%s: want %s, got %v", path, code, err)
		}
	}
}

func TestDefaultBackupName(t *testing.T) {
	at := time.Date(2026, 7, 14, 9, 5, 3, 0, time.FixedZone("x", 3600))
	if got := DefaultBackupName(".runx/data/events.sqlite", at); got != ".runx/data/events.sqlite.pre-migration-20260714T080503Z.sqlite" {
		t.Fatal(got)
	}
}

func TestCheckMigrationProof(t *testing.T) {
	body := map[string]any{"schema": MigrationProofSchema, "status": "current", "before": map[string]any{"events": 3}}
	digest, _ := canon.Digest(body)
	body["result_digest"] = digest
	good, _ := canon.Canonical(body)
	if err := checkMigrationProof(good); err != nil {
		t.Fatal(err)
	}
	body["status"] = "migrated"
	tampered, _ := canon.Canonical(body)
	for _, raw := range [][]byte{tampered, []byte(`[]`), []byte(`{"schema":"other"}`)} {
		if err := checkMigrationProof(raw); contract.CodeOf(err) != "data_migration_proof_invalid" {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
