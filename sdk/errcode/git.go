package errcode

// Git tools: The git plugin: reading a repository's history and changes.
const (
	// GitBinaryRefused: The file at that revision is not UTF-8 text.
	// Do: Read text files only.
	GitBinaryRefused Code = "git_binary_refused"

	// GitCancelled: The git command was cancelled.
	// Do: Make the call again.
	GitCancelled Code = "git_cancelled"

	// GitChangeTooLarge: The change touches more files than can be screened for secrets in one call.
	// Do: Name a narrower path.
	GitChangeTooLarge Code = "git_change_too_large"

	// GitFailed: git failed or printed output the tool cannot read.
	// Do: Read git's message; run the same git command by hand to see why.
	GitFailed Code = "git_failed"

	// GitFileTooLarge: The file at that revision is larger than the call allows.
	// Do: Read a smaller file, or raise max_bytes.
	GitFileTooLarge Code = "git_file_too_large"

	// GitNotARepository: The path is not inside a git worktree.
	// Do: Run in a git repository.
	GitNotARepository Code = "git_not_a_repository"

	// GitNotFound: git is not installed or not on PATH.
	// Do: Install git.
	GitNotFound Code = "git_not_found"

	// GitOutputInvalid: The git plugin could not encode its answer.
	// Do: Report it: this is a bug in the plugin.
	GitOutputInvalid Code = "git_output_invalid"

	// GitPathNotFound: The path does not exist at that revision.
	// Do: Name a path the revision holds.
	GitPathNotFound Code = "git_path_not_found"

	// GitRequestInvalid: The git call's input is malformed.
	// Do: Fix the field the message names.
	GitRequestInvalid Code = "git_request_invalid"

	// GitRevInvalid: The revision is not one this tool accepts (options and ranges are refused).
	// Do: Give a commit, branch or tag name.
	GitRevInvalid Code = "git_rev_invalid"

	// GitRevNotFound: The revision names no commit.
	// Do: Give a revision the repository holds.
	GitRevNotFound Code = "git_rev_not_found"

	// GitTimeout: The git command ran past its timeout.
	// Do: Name a narrower path or revision range.
	GitTimeout Code = "git_timeout"

	// GitTooManySecrets: The change touches more secret paths than the call screens.
	// Do: Name a narrower path.
	GitTooManySecrets Code = "git_too_many_secrets"
)
