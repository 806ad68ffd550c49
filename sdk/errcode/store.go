package errcode

// Event stores: Store drivers (SQLite, PostgreSQL, Redis), the store plugin and migrations.
const (
	// BroadRead: A read names no explicit stream key.
	// Do: Name the stream; a store never reads a whole resource.
	BroadRead Code = "broad_read"

	// CredentialInEndpoint: A driver endpoint URL embeds a credential.
	// Do: Remove it and deliver the password as a credential.
	CredentialInEndpoint Code = "credential_in_endpoint"

	// CursorAhead: after_version is beyond the stream's version.
	// Do: Read again from 0.
	CursorAhead Code = "cursor_ahead"

	// CursorBackwards: A continuation moved its cursor backwards.
	// Do: Continue with the previous page's next_after_version.
	CursorBackwards Code = "cursor_backwards"

	// CursorInvalid: A cursor this listing did not issue.
	// Do: Start the listing without a cursor, or use one it returned.
	CursorInvalid Code = "cursor_invalid"

	// DataMigrationBackupExists: The migration's backup path is taken.
	// Do: Name another --backup.
	DataMigrationBackupExists Code = "data_migration_backup_exists"

	// DataMigrationBusy: Another process has the database open.
	// Do: Stop what uses it and migrate again.
	DataMigrationBusy Code = "data_migration_busy"

	// DataMigrationDatabaseMissing: There is no database file at the path.
	// Do: Name the store file to migrate.
	DataMigrationDatabaseMissing Code = "data_migration_database_missing"

	// DataMigrationDatabaseRequired: runx data migrate was given no --database.
	// Do: Name the store file with --database.
	DataMigrationDatabaseRequired Code = "data_migration_database_required"

	// DataMigrationEmpty: The database holds no store; nothing was migrated.
	// Do: Nothing to do.
	DataMigrationEmpty Code = "data_migration_empty"

	// DataMigrationFailed: The migration failed; the database was left as it was.
	// Do: Read the reason in the message and migrate again.
	DataMigrationFailed Code = "data_migration_failed"

	// DataMigrationLegacyInconsistent: Legacy rows the current store cannot hold.
	// Do: Fix the rows the message names, then migrate again.
	DataMigrationLegacyInconsistent Code = "data_migration_legacy_inconsistent"

	// DataMigrationPathInvalid: A migration path cannot be resolved inside the workspace.
	// Do: Give a path inside the workspace.
	DataMigrationPathInvalid Code = "data_migration_path_invalid"

	// DataMigrationPathOutsideWorkspace: A migration path leaves the workspace.
	// Do: Give a path inside the workspace, relative to it.
	DataMigrationPathOutsideWorkspace Code = "data_migration_path_outside_workspace"

	// DataMigrationProofInvalid: The store plugin's migration proof is malformed.
	// Do: Report it: this is a bug in the store plugin.
	DataMigrationProofInvalid Code = "data_migration_proof_invalid"

	// DataMigrationSourceInvalid: --source is not a data source reference.
	// Do: Give a data source ref.
	DataMigrationSourceInvalid Code = "data_migration_source_invalid"

	// DataMigrationSourceRequired: runx data migrate was given no --source.
	// Do: Name the data source unscoped events belong to with --source.
	DataMigrationSourceRequired Code = "data_migration_source_required"

	// DataMigrationUnverified: The migrated store failed verification; the original was left as it
	// was.
	// Do: Read the message and report it.
	DataMigrationUnverified Code = "data_migration_unverified"

	// EventTooLarge: The event is over the event size cap.
	// Do: Store a smaller event.
	EventTooLarge Code = "event_too_large"

	// IdempotencyConflict: The idempotency key was already committed with a different event.
	// Do: Use a new key for a new event.
	IdempotencyConflict Code = "idempotency_conflict"

	// IdempotencyKeyRequired: A write has no idempotency key.
	// Do: Give every write a key.
	IdempotencyKeyRequired Code = "idempotency_key_required"

	// InvalidConfig: The driver configuration cannot work.
	// Do: Fix the configuration the message names.
	InvalidConfig Code = "invalid_config"

	// InvalidEvent: The event is not a JSON object.
	// Do: Store a JSON object.
	InvalidEvent Code = "invalid_event"

	// InvalidRequest: A store request field is malformed.
	// Do: Fix the field the message names.
	InvalidRequest Code = "invalid_request"

	// PageLimitExceeded: A page limit over the page cap.
	// Do: Page with after_version instead.
	PageLimitExceeded Code = "page_limit_exceeded"

	// ResponseTooLarge: One stored event alone exceeds the response cap.
	// Do: Raise the response cap, or read the event another way.
	ResponseTooLarge Code = "response_too_large"

	// SchemaRequired: The operation names no resource declaration.
	// Do: Declare the resource in the data source.
	SchemaRequired Code = "schema_required"

	// StoreBindingMissing: The store plugin was called without the binding the kernel resolves.
	// Do: Run the step through runx.
	StoreBindingMissing Code = "store_binding_missing"

	// PrivateHomeInWorkspace: The runx home lies inside the workspace, so it keeps none of the person's
	// private data.
	// Do: Set RUNX_HOME to a directory outside the workspace.
	PrivateHomeInWorkspace Code = "private_home_in_workspace"

	// PrivateStreamInvalid: A private call names a stream that is neither said:<name> nor
	// observed:<name>, or an event whose standing is not an end date.
	// Do: Name the stream said:<name> for the person's exact words or observed:<name> for what was
	// observed, and give standing as {"ends_on": "YYYY-MM-DD"}.
	PrivateStreamInvalid Code = "private_stream_invalid"

	// StoreCorrupt: The store contradicts its own invariants.
	// Do: Restore the store from a backup; nothing was guessed.
	StoreCorrupt Code = "store_corrupt"

	// StoreMigrationBindingMissing: store/migrate was called outside runx data migrate.
	// Do: Use runx data migrate.
	StoreMigrationBindingMissing Code = "store_migration_binding_missing"

	// StoreNeedsMigration: The store file holds a legacy runx event store.
	// Do: Migrate it with runx data migrate.
	StoreNeedsMigration Code = "store_needs_migration"

	// StorePacketInvalid: The store plugin could not encode its answer.
	// Do: Report it: this is a bug in the store plugin.
	StorePacketInvalid Code = "store_packet_invalid"

	// StoreRequestInvalid: The store plugin's input is malformed.
	// Do: Fix the field the message names.
	StoreRequestInvalid Code = "store_request_invalid"

	// StoreSchemaUnrecognized: The store holds tables this driver does not recognize; they were left
	// untouched.
	// Do: Use another schema or file, or migrate it.
	StoreSchemaUnrecognized Code = "store_schema_unrecognized"

	// VersionConflict: expected_version is stale.
	// Do: Read the stream and retry from its version.
	VersionConflict Code = "version_conflict"
)
