package errcode

// Plugins: Starting, pinning and calling out-of-process plugins, and what the plugin SDK answers for a
// plugin.
const (
	// CallCancelled: A call to a plugin was cancelled.
	// Do: Make the call again if it is still wanted.
	CallCancelled Code = "call_cancelled"

	// CapabilityInputInvalid: The input to a capability is not JSON or does not match its declared
	// schema.
	// Do: Fix the input at the place the message names.
	CapabilityInputInvalid Code = "capability_input_invalid"

	// CapabilityNotFound: The plugin serves no capability by that id.
	// Do: Check the capability id with runx tool list.
	CapabilityNotFound Code = "capability_not_found"

	// CapabilityOutputInvalid: A plugin answered with output that is not JSON or does not match its
	// declared schema.
	// Do: Report it to the plugin's author.
	CapabilityOutputInvalid Code = "capability_output_invalid"

	// CapabilityRoleUnserved: No plugin this runx knows declares a capability with the role the kernel
	// needs.
	// Do: Install a plugin that serves the role.
	CapabilityRoleUnserved Code = "capability_role_unserved"

	// CapabilitySchemaUnsupported: A plugin declares a schema runx cannot check, so runx refuses to
	// call it.
	// Do: Report it to the plugin's author.
	CapabilitySchemaUnsupported Code = "capability_schema_unsupported"

	// CapabilityUnknown: The artifact plugin was called with a capability it does not serve.
	// Do: Call one of the artifact plugin's capabilities.
	CapabilityUnknown Code = "capability_unknown"

	// PlatformUnsupported: What was asked rests on POSIX file and process guarantees (no-follow opens,
	// process sessions and groups, advisory locks) that this runx does not keep on this platform, so it
	// is not built here rather than run without them.
	// Do: Run it on Linux or macOS.
	PlatformUnsupported Code = "platform_unsupported"

	// PluginChecksumMismatch: The plugin binary's sha256 is not the one pinned: it changed since it
	// was pinned.
	// Do: Check why it changed, then pin it again with runx plugin pin.
	PluginChecksumMismatch Code = "plugin_checksum_mismatch"

	// PluginCrashed: The plugin process exited during the call; the call failed.
	// Do: Retry: the next call starts a fresh process. If it keeps crashing, report it to the plugin's
	// author.
	PluginCrashed Code = "plugin_crashed"

	// PluginDescribeInvalid: The plugin describes itself badly, so runx does not use it.
	// Do: Report it to the plugin's author.
	PluginDescribeInvalid Code = "plugin_describe_invalid"

	// PluginDescribeMismatch: The plugin's description does not match its name or the build runx
	// knows.
	// Do: Reinstall the plugin that belongs to this runx.
	PluginDescribeMismatch Code = "plugin_describe_mismatch"

	// PluginLockInvalid: The plugin lock file cannot be read or is not a lock document.
	// Do: Fix or remove the file, then pin plugins again.
	PluginLockInvalid Code = "plugin_lock_invalid"

	// PluginNoAnswer: A plugin's handler returned neither a result nor an error.
	// Do: Report it to the plugin's author.
	PluginNoAnswer Code = "plugin_no_answer"

	// PluginNotFound: No plugin has that name.
	// Do: Check the name with runx plugin list.
	PluginNotFound Code = "plugin_not_found"

	// PluginOutputTooLarge: A plugin answered with more bytes than runx reads from one call.
	// Do: Ask less of the call, or page its output.
	PluginOutputTooLarge Code = "plugin_output_too_large"

	// PluginPanicked: A plugin's handler panicked; the worker is discarded.
	// Do: Report it to the plugin's author.
	PluginPanicked Code = "plugin_panicked"

	// PluginProtocolUnsupported: The plugin speaks another version of the plugin protocol.
	// Do: Install a build of the plugin for this runx.
	PluginProtocolUnsupported Code = "plugin_protocol_unsupported"

	// PluginSocketPathTooLong: No directory leaves room for a plugin's unix socket path (103 bytes at most).
	// Do: Set TMPDIR to a shorter directory, or make /tmp usable.
	PluginSocketPathTooLong Code = "plugin_socket_path_too_long"

	// PluginStartFailed: The plugin process could not be started.
	// Do: Read the reason in the message (a missing or unreadable binary, a host shut down).
	PluginStartFailed Code = "plugin_start_failed"

	// PluginTimeout: The plugin did not answer before the call's deadline; its process was stopped.
	// Do: Retry, or raise the call's timeout.
	PluginTimeout Code = "plugin_timeout"

	// PluginTransportFailed: The plugin broke the protocol or its transport failed.
	// Do: Retry; if it persists, report it to the plugin's author.
	PluginTransportFailed Code = "plugin_transport_failed"

	// PluginUnpinned: The plugin is not pinned, so runx will not start it.
	// Do: Pin its sha256 with runx plugin pin <name>.
	PluginUnpinned Code = "plugin_unpinned"

	// PreviewUnsupported: The plugin does not preview this capability.
	// Do: Run the capability without a preview.
	PreviewUnsupported Code = "preview_unsupported"

	// RecoverFailed: Settling what an interrupted call left begun failed.
	// Do: Read the message, settle the workspace by hand, and resume.
	RecoverFailed Code = "recover_failed"

	// RecoverOutputTooLarge: A plugin answered Recover with more bytes than one answer may hold.
	// Do: Report it to the plugin's author.
	RecoverOutputTooLarge Code = "recover_output_too_large"

	// RecoverUnsupported: A capability declares that it recovers, but its plugin does not answer
	// Recover.
	// Do: Report it to the plugin's author.
	RecoverUnsupported Code = "recover_unsupported"
)
