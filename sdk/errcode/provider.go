package errcode

// Providers: Requests a connector or a store sends to a provider, and what its answer proves.
const (
	// AmbiguousCommit: A write was sent and whether it took effect cannot be proven.
	// Do: Retry with the same idempotency key: the write happens once.
	AmbiguousCommit Code = "ambiguous_commit"

	// ConnectorRequestInvalid: The operation's request cannot be rendered or would leave the
	// connector's declared origin; nothing was sent.
	// Do: Fix the inputs or the connector manifest the message names.
	ConnectorRequestInvalid Code = "connector_request_invalid"

	// ConnectorRequestTooLarge: The operation's input is over the request ceiling; nothing was sent.
	// Do: Send less, or put large content behind an artifact.
	ConnectorRequestTooLarge Code = "connector_request_too_large"

	// HTTPExchangeUnmatched: Under runx test, a request no declared exchange matches; it did not reach
	// the network.
	// Do: Declare the exchange in the test, or fix the request.
	HTTPExchangeUnmatched Code = "http_exchange_unmatched"

	// ProviderNotFound: The provider answered that what the request names does not exist (404).
	// Do: Check the identifiers the request names.
	ProviderNotFound Code = "provider_not_found"

	// ProviderRefused: The provider answered and refused the request (4xx).
	// Do: Read the provider's reason in the message and fix the request or the credential.
	ProviderRefused Code = "provider_refused"

	// ProviderUnavailable: The provider could not be reached or could not do the operation, and
	// nothing was done.
	// Do: Retry later (with the same idempotency key for a write).
	ProviderUnavailable Code = "provider_unavailable"
)
