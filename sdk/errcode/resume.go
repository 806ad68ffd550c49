package errcode

// Pause and resume: A paused run's requests and the resume document that answers them.
const (
	// AnswerInvalid: An answer's value is not JSON.
	// Do: Give the answer as JSON.
	AnswerInvalid Code = "answer_invalid"

	// RequestNotWaiting: A payload was asked of an address the run does not wait on.
	// Do: Use an address runx history lists.
	RequestNotWaiting Code = "request_not_waiting"

	// ResumeAnswerInvalid: An answer does not fit the question it answers.
	// Do: Answer the questions asked, by question id.
	ResumeAnswerInvalid Code = "resume_answer_invalid"

	// ResumeChildRun: A child run was resumed directly.
	// Do: Resume its root run.
	ResumeChildRun Code = "resume_child_run"

	// ResumeCloseNotAlone: A close came with answers or approvals.
	// Do: Send the close alone.
	ResumeCloseNotAlone Code = "resume_close_not_alone"

	// ResumeCloseOutcomeInvalid: A close's outcome is neither declined nor superseded.
	// Do: Close as declined or superseded.
	ResumeCloseOutcomeInvalid Code = "resume_close_outcome_invalid"

	// ResumeClosureDrift: Something the paused run is bound to changed (runx, a child package, an
	// added connector).
	// Do: Start a new run.
	ResumeClosureDrift Code = "resume_closure_drift"

	// ResumeDigestMismatch: An entry binds a request digest that is not the one the run waits on.
	// Do: Answer the request the run waits on now (runx history shows it).
	ResumeDigestMismatch Code = "resume_digest_mismatch"

	// ResumeDocumentInvalid: The resume document is not a runx.resume.v1 object.
	// Do: Fix the document at the place the message names.
	ResumeDocumentInvalid Code = "resume_document_invalid"

	// ResumeDocumentTooLarge: The resume document is over its size ceiling.
	// Do: Send a smaller document.
	ResumeDocumentTooLarge Code = "resume_document_too_large"

	// ResumeEntryInvalid: A resume entry is malformed.
	// Do: Fix the entry the message names.
	ResumeEntryInvalid Code = "resume_entry_invalid"

	// ResumeFieldTooLarge: A field of a resume entry is over its size ceiling.
	// Do: Shorten the field.
	ResumeFieldTooLarge Code = "resume_field_too_large"

	// ResumePackageDrift: The package of the paused run changed or no longer loads.
	// Do: Start a new run.
	ResumePackageDrift Code = "resume_package_drift"

	// ResumeReasonEmpty: An approval or decline gives no reason.
	// Do: Say why the step is approved or declined.
	ResumeReasonEmpty Code = "resume_reason_empty"

	// ResumeUnknownAddress: An entry names no request the run waits on.
	// Do: Use an address runx history lists.
	ResumeUnknownAddress Code = "resume_unknown_address"

	// ResumeWaitNotAnswerable: The entry answers a wait runx settles itself.
	// Do: Leave the wait out.
	ResumeWaitNotAnswerable Code = "resume_wait_not_answerable"

	// ResumeWrongLane: An answer was given under approvals, or a decision under answers.
	// Do: Put a person's decision under approvals and an agent's answer under answers.
	ResumeWrongLane Code = "resume_wrong_lane"

	// RetryDeclined: A person declined to run the step again; its earlier attempt stands.
	// Do: Nothing to do; start a new run to try again.
	RetryDeclined Code = "retry_declined"

	// RetryUnsupported: Retry on a step that may have an effect, or on a kind runx cannot re-run
	// safely.
	// Do: Remove retry from the step.
	RetryUnsupported Code = "retry_unsupported"

	// RetryWindowClosed: The provider no longer holds the write's idempotency key, so a resend could
	// act twice.
	// Do: Check the provider by hand, then decide.
	RetryWindowClosed Code = "retry_window_closed"

	// RunIsChild: A child run was addressed directly.
	// Do: Address its turns from its root run.
	RunIsChild Code = "run_is_child"

	// RunNotFound: No run by that id in this project's run records.
	// Do: Use a run id runx history lists.
	RunNotFound Code = "run_not_found"

	// RunSealed: The run already sealed; it takes nothing new.
	// Do: Start a new run.
	RunSealed Code = "run_sealed"
)
