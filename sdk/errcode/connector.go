package errcode

// Connectors and money: Connector operations a step calls, their idempotency keys, delegations,
// payments and spend.
const (
	// ConnectorCredentialAmbiguous: A connector plugin declares several credentials, and runx
	// connector use binds one.
	// Do: Export each variable instead.
	ConnectorCredentialAmbiguous Code = "connector_credential_ambiguous"

	// ConnectorCredentialUnsupported: The connector declares no credential, so there is nothing to
	// bind.
	// Do: Nothing to bind; run without one.
	ConnectorCredentialUnsupported Code = "connector_credential_unsupported"

	// ConnectorNotFound: No connector by that name is declared or installed.
	// Do: Run in the package that declares it, or name it with --package.
	ConnectorNotFound Code = "connector_not_found"

	// ConnectorNotInstalled: A step calls a connector operation no installed connector plugin serves.
	// Do: Install the connector's plugin.
	ConnectorNotInstalled Code = "connector_not_installed"

	// ConnectorPinInvalid: run.yaml pins a connector the package carries itself, or one no step
	// of it calls.
	// Do: Pin only a connector outside the package that a step calls.
	ConnectorPinInvalid Code = "connector_pin_invalid"

	// ConnectorPinMismatch: The added connector's manifest is not the one the package pins.
	// Do: Install the pinned version, or pin the installed manifest's digest.
	ConnectorPinMismatch Code = "connector_pin_mismatch"

	// ConnectorPinMissing: A package binds a connector a registry installed into the project
	// without pinning the manifest it was written against.
	// Do: Add connectors: {<name>: {manifest_digest: <digest>}} to run.yaml; the message names the
	// installed manifest's digest.
	ConnectorPinMissing Code = "connector_pin_missing"

	// ConnectorOperationUnknown: The connector declares no such operation.
	// Do: Use an operation the message lists.
	ConnectorOperationUnknown Code = "connector_operation_unknown"

	// IdempotencyKeyConflict: The idempotency key was already used for another request body.
	// Do: Use a new key for a new body.
	IdempotencyKeyConflict Code = "idempotency_key_conflict"

	// IdempotencyKeyInFlight: Another call began sending under the same key after this one checked it.
	// Do: Run again once the other call settles.
	IdempotencyKeyInFlight Code = "idempotency_key_in_flight"

	// IdempotencyKeyMissing: A write names no idempotency_key.
	// Do: Name one; a retry reuses it.
	IdempotencyKeyMissing Code = "idempotency_key_missing"

	// IdempotencyKeyUnresolved: A step's idempotency_key could not be resolved.
	// Do: Fix the reference the message names.
	IdempotencyKeyUnresolved Code = "idempotency_key_unresolved"

	// PaymentAmountInvalid: An operation's payment amount is not a whole number, 0 or more.
	// Do: Fix the connector's payment declaration.
	PaymentAmountInvalid Code = "payment_amount_invalid"

	// PaymentCurrencyInvalid: An operation's payment currency is empty.
	// Do: Fix the connector's payment declaration.
	PaymentCurrencyInvalid Code = "payment_currency_invalid"

	// PaymentCurrencyUncountable: Under a money limit, a payment in a currency runx does not count
	// (only USD and USDC).
	// Do: Run without a money limit, or pay in USD or USDC.
	PaymentCurrencyUncountable Code = "payment_currency_uncountable"

	// ProviderAnswerInvalid: The provider's answer is not what the operation declares.
	// Do: Check the provider and the connector's declaration.
	ProviderAnswerInvalid Code = "provider_answer_invalid"

	// ProviderOutputSecretRefused: The provider's answer holds a secret, so it is not kept.
	// Do: Check the provider; the answer must not echo a credential.
	ProviderOutputSecretRefused Code = "provider_output_secret_refused"

	// ReadbackUnconfirmed: The provider acknowledged a write, but its readback did not confirm it.
	// Do: Check the provider, then resume with {"retry": true} or {"retry": false}.
	ReadbackUnconfirmed Code = "readback_unconfirmed"

	// SpendRecordFailed: The reservation of a quote could not be recorded, so nothing was sent.
	// Do: Check the project's .runx directory, then run again.
	SpendRecordFailed Code = "spend_record_failed"
)
