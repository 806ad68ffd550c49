package errcode

// Reach: Which paths a step may touch: the workspace, the run's inputs, and what is never reached.
const (
	// ReachOutsideInputs: The path is outside the workspace and every root the run's inputs name.
	// Do: Name a path inside the workspace or an input root.
	ReachOutsideInputs Code = "reach_outside_inputs"

	// ReachOutsideWorkspace: The path is outside the workspace.
	// Do: Name a path inside the workspace.
	ReachOutsideWorkspace Code = "reach_outside_workspace"

	// ReachPathInvalid: The path is not a clean absolute path.
	// Do: Give a clean path without NUL bytes.
	ReachPathInvalid Code = "reach_path_invalid"

	// ReachProtectedDir: The path is inside a protected directory (such as .git or .runx) no tool
	// reaches.
	// Do: Name a path outside it.
	ReachProtectedDir Code = "reach_protected_dir"

	// ReachSecretRefused: The path matches a secret pattern no tool may touch.
	// Do: Name a path that is not a secret.
	ReachSecretRefused Code = "reach_secret_refused"

	// ReachSymlinkEscape: The path resolves through a symbolic link to outside the allowed roots.
	// Do: Name the real path inside the roots.
	ReachSymlinkEscape Code = "reach_symlink_escape"

	// ReachUnknown: The call's reach is neither workspace nor inputs.
	// Do: Use reach workspace or inputs.
	ReachUnknown Code = "reach_unknown"

	// ReachUnresolvable: A root or protected path cannot be resolved.
	// Do: Check that the workspace's directories exist and are readable.
	ReachUnresolvable Code = "reach_unresolvable"

	// ReachWorkspaceMissing: The call carries no absolute workspace root.
	// Do: Run the call through runx, which gives it.
	ReachWorkspaceMissing Code = "reach_workspace_missing"
)
