package errcode

// Artifacts: The artifact plugin: content kept in the project's artifact store and read back by
// reference.
const (
	// ArtifactAdmissionLimit: Admitting the file would take the run past its admission ceiling on
	// artifact bytes.
	// Do: Admit fewer or smaller files in one run.
	ArtifactAdmissionLimit Code = "artifact_admission_limit"

	// ArtifactCancelled: Keeping an artifact was cancelled; nothing was kept.
	// Do: Make the call again.
	ArtifactCancelled Code = "artifact_cancelled"

	// ArtifactDigestMismatch: The stored content's digest is not the one its descriptor names: it
	// changed after it was kept.
	// Do: Keep the content again; do not edit the artifact store by hand.
	ArtifactDigestMismatch Code = "artifact_digest_mismatch"

	// ArtifactNotFound: The content of an artifact reference is missing from the artifact store.
	// Do: Admit the content again; do not edit the artifact store by hand.
	ArtifactNotFound Code = "artifact_not_found"

	// ArtifactNotJSONArray: The artifact was paged as a JSON array and is not one at that offset.
	// Do: Read it with encoding utf8 or base64.
	ArtifactNotJSONArray Code = "artifact_not_json_array"

	// ArtifactNotRegularFile: The path to keep is not a regular file.
	// Do: Name a regular file.
	ArtifactNotRegularFile Code = "artifact_not_regular_file"

	// ArtifactNotUTF8: The artifact was read as text and those bytes are not UTF-8.
	// Do: Read it with encoding base64.
	ArtifactNotUTF8 Code = "artifact_not_utf8"

	// ArtifactOffsetInvalid: A page offset does not start an item or a character.
	// Do: Start at 0 or at a next_offset an earlier page returned.
	ArtifactOffsetInvalid Code = "artifact_offset_invalid"

	// ArtifactReachRefused: A retained artifact was opened by a step without reach: inputs, the only
	// reach that opens one.
	// Do: Open it from a step with reach: inputs.
	ArtifactReachRefused Code = "artifact_reach_refused"

	// ArtifactReachRequired: The artifact capability was called from a step without reach: inputs.
	// Do: Call it from a step with reach: inputs.
	ArtifactReachRequired Code = "artifact_reach_required"

	// ArtifactRecordTooLarge: One item of the artifact is longer than the page ceiling.
	// Do: Read the artifact with encoding utf8 or base64 instead.
	ArtifactRecordTooLarge Code = "artifact_record_too_large"

	// ArtifactRefUnknown: The reference names no artifact of this run; a reference is good only in the
	// run that admitted or opened it.
	// Do: Use a reference this run was given.
	ArtifactRefUnknown Code = "artifact_ref_unknown"

	// ArtifactRequestInvalid: The artifact call's input is malformed.
	// Do: Fix the field the message names.
	ArtifactRequestInvalid Code = "artifact_request_invalid"

	// ArtifactRootMismatch: The artifact was kept by another project's store.
	// Do: Open only this project's artifacts.
	ArtifactRootMismatch Code = "artifact_root_mismatch"

	// ArtifactSizeMismatch: The stored content's size is not the one its descriptor names.
	// Do: Keep the content again; do not edit the artifact store by hand.
	ArtifactSizeMismatch Code = "artifact_size_mismatch"

	// ArtifactStateMissing: The call names no project state directory or no run, so no artifact can be
	// kept.
	// Do: Run the call through runx, which binds both.
	ArtifactStateMissing Code = "artifact_state_missing"

	// ArtifactStoreUnavailable: The artifact store could not be read or written.
	// Do: Check the project's .runx directory (space, permissions) and retry.
	ArtifactStoreUnavailable Code = "artifact_store_unavailable"

	// ArtifactValueInvalid: The value to keep has no canonical JSON form.
	// Do: Give a JSON value without numbers or strings canonical JSON cannot carry.
	ArtifactValueInvalid Code = "artifact_value_invalid"
)
