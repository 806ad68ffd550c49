package errcode

// Notary: `runx notarize`, `runx notary serve` and `runx verify --notary`: counter-seals, the
// transparency log, its checkpoints and proofs.
const (
	// NotaryCheckpointInvalid: A notary checkpoint is malformed, or its signature does not verify under
	// the notary key given.
	// Do: Check --notary-key names the notary that issued the document; do not trust the document.
	NotaryCheckpointInvalid Code = "notary_checkpoint_invalid"

	// NotaryCountersealInvalid: A notary document's counter-seal does not verify under the notary key
	// given: the statement it seals was altered, or another key sealed it.
	// Do: Do not trust the document; fetch the record again from the notary's /r link.
	NotaryCountersealInvalid Code = "notary_counterseal_invalid"

	// NotaryDocumentInvalid: A notary document is not a runx.notary_record.v1 document runx reads.
	// Do: Give the document runx notarize saved or the notary's /r link served.
	NotaryDocumentInvalid Code = "notary_document_invalid"

	// NotaryInsecureURL: The public API URL is plain http:// to a host that is not this machine; the
	// bearer token would cross the network in the clear.
	// Do: Use https://, or http:// to a loopback address with --allow-local-api.
	NotaryInsecureURL Code = "notary_insecure_url"

	// NotaryKeyInvalid: A notary key (the server's in its data directory, or --notary-key) is not an
	// ed25519 key runx reads.
	// Do: Give the PEM public key the notary printed (notary.pub in its data directory); restore a
	// server's key from a backup.
	NotaryKeyInvalid Code = "notary_key_invalid"

	// NotaryLocalAPIRefused: The public API URL is a loopback address, which runx uses only when asked.
	// Do: Pass --allow-local-api to talk to a notary on this machine.
	NotaryLocalAPIRefused Code = "notary_local_api_refused"

	// NotaryLogForked: The notary's log checkpoint is not consistent with the last one this runx home
	// saw: the log was rewritten, or the notary shows different logs to different readers.
	// Do: Do not trust the notary's records; keep both checkpoints as evidence and report the notary.
	NotaryLogForked Code = "notary_log_forked"

	// NotaryNotFound: The notary holds no such record or endpoint.
	// Do: Check the content hash or the path; notarize the receipt first.
	NotaryNotFound Code = "notary_not_found"

	// NotaryProofInvalid: A notary inclusion or consistency proof does not verify: it proves another
	// record, another position or another tree.
	// Do: Do not trust the document; fetch the record again from the notary's /r link.
	NotaryProofInvalid Code = "notary_proof_invalid"

	// NotaryRateLimited: The token sent more requests than the notary allows in a while.
	// Do: Wait the seconds Retry-After names, then send again.
	NotaryRateLimited Code = "notary_rate_limited"

	// NotaryRequestInvalid: A request to the notary is malformed (its body, a parameter, the method).
	// Do: Send what docs/notary.md describes.
	NotaryRequestInvalid Code = "notary_request_invalid"

	// NotaryRequestTooLarge: A request body is over the notary's ceiling (a receipt's 8 MiB and some).
	// Do: Send one sealed receipt.
	NotaryRequestTooLarge Code = "notary_request_too_large"

	// NotaryResponseInvalid: The notary answered something runx does not read, or a record for another
	// receipt than the one sent.
	// Do: Check the URL names a runx notary; report the notary if it does.
	NotaryResponseInvalid Code = "notary_response_invalid"

	// NotaryServerError: The notary could not answer for a reason of its own.
	// Do: Try again later; its operator finds the cause in the server's log.
	NotaryServerError Code = "notary_server_error"

	// NotaryStateInvalid: The last notary checkpoint this runx home saw is unreadable or not one runx
	// wrote.
	// Do: Restore the file under the runx home's notary/ from a backup; removing it trusts the next
	// checkpoint seen.
	NotaryStateInvalid Code = "notary_state_invalid"

	// NotaryStoreInvalid: The notary's store holds a schema, or a log, other than the one this runx
	// writes.
	// Do: Point --data or --database at a notary store this runx wrote.
	NotaryStoreInvalid Code = "notary_store_invalid"

	// NotaryTokenInvalid: The request's bearer token is not one this notary issued.
	// Do: Use a token `runx notary token create` made for this notary.
	NotaryTokenInvalid Code = "notary_token_invalid"

	// NotaryTokenMissing: Notarizing needs a token and none is set.
	// Do: Export RUNX_PUBLIC_API_TOKEN, or pipe it to runx login --for publish --api-base-url <url>.
	NotaryTokenMissing Code = "notary_token_missing"

	// NotaryUnavailable: The notary could not be reached, or answered with an error runx cannot read.
	// Do: Check the URL and the network; try again.
	NotaryUnavailable Code = "notary_unavailable"

	// NotaryURLInvalid: The public API URL is not an absolute http(s) base URL (no credentials, query
	// or fragment).
	// Do: Give a base URL such as https://api.runx.ai.
	NotaryURLInvalid Code = "notary_url_invalid"
)
