package errcode

// File tools: The fs plugin: reading, searching and changing workspace files under a journal.
const (
	// FSBinaryRefused: The file is not UTF-8 text; the fs edit tools change text only.
	// Do: Change binary files another way.
	FSBinaryRefused Code = "fs_binary_refused"

	// FSBlindWriteRefused: A write or delete of an existing file names no expected_digest.
	// Do: Read the file and name its content_digest as expected_digest.
	FSBlindWriteRefused Code = "fs_blind_write_refused"

	// FSBundlePathRepeated: Two changes of one bundle name the same file.
	// Do: Change each file once per bundle.
	FSBundlePathRepeated Code = "fs_bundle_path_repeated"

	// FSCallReused: The call id already committed a different change.
	// Do: Make a new change under a new call.
	FSCallReused Code = "fs_call_reused"

	// FSCancelled: The call was cancelled; nothing was changed.
	// Do: Make the call again.
	FSCancelled Code = "fs_cancelled"

	// FSChangeTooLarge: The change touches more files or bytes than one call may.
	// Do: Split the change into smaller calls.
	FSChangeTooLarge Code = "fs_change_too_large"

	// FSChangedDuringRead: The file changed while it was being read.
	// Do: Read it again.
	FSChangedDuringRead Code = "fs_changed_during_read"

	// FSCreateExists: A create names a file that already exists.
	// Do: Read it and name its content_digest as expected_digest to replace it.
	FSCreateExists Code = "fs_create_exists"

	// FSDigestMismatch: The file does not hold the content the change expects.
	// Do: Read the workspace again and base the change on what it holds.
	FSDigestMismatch Code = "fs_digest_mismatch"

	// FSEditAmbiguous: An edit's old text occurs more than once in the file.
	// Do: Include more surrounding text so it occurs once, or set replace_all.
	FSEditAmbiguous Code = "fs_edit_ambiguous"

	// FSEditNotFound: An edit's old text is not in the file.
	// Do: Read the file again and copy the text exactly.
	FSEditNotFound Code = "fs_edit_not_found"

	// FSJournalFailed: The change journal could not be read or written.
	// Do: Check the project's .runx directory (space, permissions).
	FSJournalFailed Code = "fs_journal_failed"

	// FSJournalUnavailable: The call's binding names no project directory for the change journal.
	// Do: Run the change through runx, which binds it.
	FSJournalUnavailable Code = "fs_journal_unavailable"

	// FSNotADirectory: A path's parent is not a directory.
	// Do: Name a path whose parents are directories.
	FSNotADirectory Code = "fs_not_a_directory"

	// FSNotAFile: The path names a directory or another non-regular file.
	// Do: Name a regular file.
	FSNotAFile Code = "fs_not_a_file"

	// FSNotFound: The file does not exist.
	// Do: Create it with fs.write, or name an existing file.
	FSNotFound Code = "fs_not_found"

	// FSOutputInvalid: The fs plugin could not encode its answer.
	// Do: Report it: this is a bug in the plugin.
	FSOutputInvalid Code = "fs_output_invalid"

	// FSReadFailed: A file or directory could not be read.
	// Do: Check the path's permissions.
	FSReadFailed Code = "fs_read_failed"

	// FSReadTooLarge: The file is larger than the read allows.
	// Do: Read a smaller file, or raise max_bytes.
	FSReadTooLarge Code = "fs_read_too_large"

	// FSRecoverFailed: A change an earlier attempt left begun could not be rolled back.
	// Do: Inspect the journal the message names and settle the files by hand.
	FSRecoverFailed Code = "fs_recover_failed"

	// FSRequestInvalid: The fs call's input is malformed.
	// Do: Fix the field the message names.
	FSRequestInvalid Code = "fs_request_invalid"

	// FSSearchQueryEmpty: fs.search was given an empty query.
	// Do: Give a non-empty query.
	FSSearchQueryEmpty Code = "fs_search_query_empty"

	// FSSearchRegexInvalid: The search query is not a valid regular expression.
	// Do: Fix the expression.
	FSSearchRegexInvalid Code = "fs_search_regex_invalid"

	// FSWriteFailed: A file or directory could not be written.
	// Do: Check space and permissions at the path.
	FSWriteFailed Code = "fs_write_failed"
)
