package errcode

// Scripts: The kernel's side of a script step: its artifacts and references.
const (
	// ScriptArtifactDamaged: An input artifact read by a script is no longer the content that was
	// kept.
	// Do: Start a new run; do not edit the artifact store by hand.
	ScriptArtifactDamaged Code = "script_artifact_damaged"

	// ScriptArtifactNotValue: ctx.read of an artifact that is neither JSON nor UTF-8 text.
	// Do: Page it with artifact.read.
	ScriptArtifactNotValue Code = "script_artifact_not_value"

	// ScriptArtifactTooLarge: ctx.read of an artifact larger than one read gives whole.
	// Do: Page it with artifact.read.
	ScriptArtifactTooLarge Code = "script_artifact_too_large"

	// ScriptArtifactUnavailable: A step's large inputs could not be kept in the artifact store.
	// Do: Check the project's .runx directory (space, permissions).
	ScriptArtifactUnavailable Code = "script_artifact_unavailable"

	// ScriptReferenceUnknown: A reference the step never gave its script.
	// Do: Return only references the script was given.
	ScriptReferenceUnknown Code = "script_reference_unknown"
)
