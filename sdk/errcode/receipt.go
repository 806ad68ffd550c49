package errcode

// Receipts: Signed receipts, their store, their keys and their verification.
const (
	// ChildCommitmentMismatch: A parent receipt's commitment to a child does not match the child.
	// Do: The receipt tree was altered; do not trust it.
	ChildCommitmentMismatch Code = "child_commitment_mismatch"

	// KeyMalformed: A signing or trusted key file is malformed.
	// Do: Replace the key file.
	KeyMalformed Code = "key_malformed"

	// KeyPermissionsUnsafe: A signing key file is readable by others.
	// Do: Make it readable by its owner only (chmod 600).
	KeyPermissionsUnsafe Code = "key_permissions_unsafe"

	// NotAStep: receipt.read was given a receipt that is not a step receipt; it signs no assembled
	// result.
	// Do: Read its step receipts.
	NotAStep Code = "not_a_step"

	// NotRetained: The receipt is valid, but this workspace holds no run record of its step.
	// Do: Read it in the workspace that ran it.
	NotRetained Code = "not_retained"

	// ReceiptBodyInvalid: A receipt body breaks its format.
	// Do: The receipt was altered or written by another tool; do not trust it.
	ReceiptBodyInvalid Code = "receipt_body_invalid"

	// ReceiptBudgetExceeded: The run would write more receipts than its receipt budget allows.
	// Do: Raise the budget, or split the work into smaller runs.
	ReceiptBudgetExceeded Code = "receipt_budget_exceeded"

	// ReceiptClaimReachRefused: receipt.read returns protected claim bodies, which a run with reach:
	// workspace cannot access.
	// Do: Read it from a step with reach: inputs.
	ReceiptClaimReachRefused Code = "receipt_claim_reach_refused"

	// ReceiptCommittedTwice: A receipt is committed by more than one parent in one tree.
	// Do: The receipt tree was altered; do not trust it.
	ReceiptCommittedTwice Code = "receipt_committed_twice"

	// ReceiptConflict: A different receipt is already stored under that id.
	// Do: The store was altered; check it.
	ReceiptConflict Code = "receipt_conflict"

	// ReceiptCursorInvalid: The cursor is not one receipt.query returned.
	// Do: Query from the start, or use the cursor a query returned.
	ReceiptCursorInvalid Code = "receipt_cursor_invalid"

	// ReceiptDigestMismatch: A stored receipt does not digest to its id.
	// Do: The receipt was altered; do not trust it.
	ReceiptDigestMismatch Code = "receipt_digest_mismatch"

	// ReceiptFileUnsafe: A receipt's path in the store is a symbolic link or not a regular file; it is
	// never followed or read.
	// Do: Remove it from the store.
	ReceiptFileUnsafe Code = "receipt_file_unsafe"

	// ReceiptIDInvalid: A receipt id is not a receipt id.
	// Do: Use an id runx printed or listed.
	ReceiptIDInvalid Code = "receipt_id_invalid"

	// ReceiptIndexMalformed: The receipt store's index is malformed.
	// Do: Move the index aside; runx rebuilds it.
	ReceiptIndexMalformed Code = "receipt_index_malformed"

	// ReceiptMalformed: A stored receipt is not a receipt document.
	// Do: The receipt was altered or damaged; do not trust it.
	ReceiptMalformed Code = "receipt_malformed"

	// ReceiptMissing: A receipt the tree commits is not in the store.
	// Do: Copy the whole receipt tree, not one receipt.
	ReceiptMissing Code = "receipt_missing"

	// ReceiptNotFound: No receipt by that id is in the store.
	// Do: Use an id runx history lists.
	ReceiptNotFound Code = "receipt_not_found"

	// ReceiptNotVerified: The receipt's tree did not verify, so nothing it claims is read.
	// Do: Verify it with runx verify to see why.
	ReceiptNotVerified Code = "receipt_not_verified"

	// ReceiptOutputAbsent: The step receipt declares no output.
	// Do: Read another step's receipt.
	ReceiptOutputAbsent Code = "receipt_output_absent"

	// ReceiptOutputMismatch: The retained output does not digest to what the receipt signed.
	// Do: The run records were altered; do not trust the output.
	ReceiptOutputMismatch Code = "receipt_output_mismatch"

	// ReceiptPointerNotFound: json_pointer selects nothing in the receipt's output.
	// Do: Give a pointer into the output.
	ReceiptPointerNotFound Code = "receipt_pointer_not_found"

	// ReceiptSelectionTooLarge: The selection is larger than max_bytes; it is refused rather than cut.
	// Do: Select less, or raise max_bytes.
	ReceiptSelectionTooLarge Code = "receipt_selection_too_large"

	// ReceiptStoreUnrecognized: The directory is not a receipt store runx recognizes.
	// Do: Point runx at its own receipt store.
	ReceiptStoreUnrecognized Code = "receipt_store_unrecognized"

	// ReceiptTreeTooDeep: A receipt tree nests deeper than the verifier allows.
	// Do: Do not trust the tree; it was not made by runx.
	ReceiptTreeTooDeep Code = "receipt_tree_too_deep"

	// ReceiptTreeTooLarge: A receipt tree holds more receipts than the verifier allows.
	// Do: Do not trust the tree; it was not made by runx.
	ReceiptTreeTooLarge Code = "receipt_tree_too_large"

	// ReceiptUnreadable: A receipt file cannot be read.
	// Do: Check the file's permissions.
	ReceiptUnreadable Code = "receipt_unreadable"

	// SignatureInvalid: A receipt's signature does not verify.
	// Do: The receipt was altered; do not trust it.
	SignatureInvalid Code = "signature_invalid"

	// SignatureUntrusted: A receipt is signed by a key this verifier does not trust.
	// Do: Put its public key in a .pub file under the runx home's keys/trusted/ if you trust it.
	SignatureUntrusted Code = "signature_untrusted"

	// VerifyCancelled: Verification stopped before it finished.
	// Do: Run the verification again.
	VerifyCancelled Code = "verify_cancelled"

	// VerifyRunNotSealed: The run has not sealed, so it has no receipt yet.
	// Do: Continue it with runx resume, then verify the receipt it seals.
	VerifyRunNotSealed Code = "verify_run_not_sealed"
)
