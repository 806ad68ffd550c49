package errcode

// Example plugins: Codes of the example plugins under sdk/examples, which show plugin authors how to
// refuse.
const (
	// IdempotencyInFlight: An attempt under the same key is still in flight at the provider.
	// Do: Try again once it settles.
	IdempotencyInFlight Code = "idempotency_in_flight"

	// IdempotencyKeyReused: The provider holds a different message under this idempotency key.
	// Do: Use a new key for a new message.
	IdempotencyKeyReused Code = "idempotency_key_reused"

	// InputInvalid: An example plugin was given input it does not take.
	// Do: Give the input the message describes.
	InputInvalid Code = "input_invalid"

	// NotesJournalFailed: The notes example could not write its journal.
	// Do: Check the project's .runx directory.
	NotesJournalFailed Code = "notes_journal_failed"

	// NotesJournalUnavailable: The notes call's binding names no project directory.
	// Do: Run the call through runx.
	NotesJournalUnavailable Code = "notes_journal_unavailable"

	// NotesRecoverFailed: The journal of a begun change cannot be read or settled.
	// Do: Settle the notes by hand.
	NotesRecoverFailed Code = "notes_recover_failed"

	// NotesRequestInvalid: The notes call's input is malformed.
	// Do: Give {changes: [{path, text}]}.
	NotesRequestInvalid Code = "notes_request_invalid"

	// NotesWriteFailed: A note could not be written.
	// Do: Check space and permissions.
	NotesWriteFailed Code = "notes_write_failed"

	// OutputInvalid: An example plugin could not encode its answer.
	// Do: Report it: this is a bug in the example.
	OutputInvalid Code = "output_invalid"

	// PostboxEndpointInsecure: The postbox address is plain http to a non-loopback host.
	// Do: Use https.
	PostboxEndpointInsecure Code = "postbox_endpoint_insecure"

	// PostboxNotConfigured: .runx/postbox.json is missing or malformed.
	// Do: Write {"base_url": "https://..."} to it.
	PostboxNotConfigured Code = "postbox_not_configured"

	// PostboxTokenMissing: runx delivered no postbox token.
	// Do: Bind it with runx connector use postbox.
	PostboxTokenMissing Code = "postbox_token_missing"
)
