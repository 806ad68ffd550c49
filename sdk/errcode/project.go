package errcode

// Project state: The project's .runx directory and the run records runx keeps in it.
const (
	// ProjectForeignOwner: The .runx runx would use belongs to another user.
	// Do: Run in your own directory, or set RUNX_PROJECT_DIR.
	ProjectForeignOwner Code = "project_foreign_owner"

	// ProjectNotDirectory: .runx is a file or a symbolic link.
	// Do: Remove it, or set RUNX_PROJECT_DIR to name the project directory.
	ProjectNotDirectory Code = "project_not_directory"

	// ProjectUnrecognized: .runx holds what runx never writes and carries no identity file, or is the
	// runx home.
	// Do: Remove or rename it, or set RUNX_PROJECT_DIR.
	ProjectUnrecognized Code = "project_unrecognized"

	// StateDamaged: The run records file is empty, not a SQLite database, or corrupt.
	// Do: Move it aside to start new records (mv it to <name>.damaged).
	StateDamaged Code = "state_damaged"

	// StateSchemaNewer: The run records were written by a newer runx.
	// Do: Upgrade runx.
	StateSchemaNewer Code = "state_schema_newer"

	// StateSyncFailed: A committed transition could not be made durable; the process records nothing
	// more.
	// Do: Check the disk, then restart runx.
	StateSyncFailed Code = "state_sync_failed"

	// StateUnreadable: The run records file cannot be opened.
	// Do: Check its permissions, or move it aside.
	StateUnreadable Code = "state_unreadable"

	// StateWALUnavailable: The run records file is not in WAL mode.
	// Do: Move the project to a local file system.
	StateWALUnavailable Code = "state_wal_unavailable"
)
