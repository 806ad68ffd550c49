package errcode

// Registry server: What `runx registry serve` answers over HTTP, and its store, key, tokens and tiers.
const (
	// RegistryKeyInvalid: The registry's signing key in its data directory or database is not an
	// ed25519 key runx wrote.
	// Do: Restore the key from a backup; a new key makes every client's trust in the old one useless.
	RegistryKeyInvalid Code = "registry_key_invalid"

	// RegistryNamespaceInvalid: A namespace (publisher) is not lowercase letters, digits and single
	// hyphens, starting with a letter, at most 64 characters.
	// Do: Give a namespace of that form.
	RegistryNamespaceInvalid Code = "registry_namespace_invalid"

	// RegistryNamespaceNotOwned: The publish token does not own the namespace the package is published
	// under.
	// Do: Publish under a namespace the token owns (GET /v1/whoami lists them), or ask the registry's
	// operator for a token of that namespace.
	RegistryNamespaceNotOwned Code = "registry_namespace_not_owned"

	// RegistryNotFound: The registry holds no such skill, connector, version or endpoint.
	// Do: Check the name and version with runx registry search.
	RegistryNotFound Code = "registry_not_found"

	// RegistryRequestInvalid: A request to the registry is not one its API accepts: a body that is not
	// the documented JSON, a field it does not know, or a query parameter out of range.
	// Do: Send the request the message describes.
	RegistryRequestInvalid Code = "registry_request_invalid"

	// RegistryRequestTooLarge: A request body is over the registry's size limit.
	// Do: Make the package smaller than the limit the message states.
	RegistryRequestTooLarge Code = "registry_request_too_large"

	// RegistryServerError: The registry failed to answer because of its own store or a bug; the
	// request changed nothing it could not finish.
	// Do: Retry later; the operator finds the cause in the server's log.
	RegistryServerError Code = "registry_server_error"

	// RegistryStoreInvalid: The registry's database holds a schema runx did not write or cannot read.
	// Do: Point the server at its own database, or at an empty one.
	RegistryStoreInvalid Code = "registry_store_invalid"

	// RegistryTierInvalid: A trust tier is not first_party, verified or community.
	// Do: Give one of those tiers.
	RegistryTierInvalid Code = "registry_tier_invalid"

	// RegistryTokenInvalid: A request that needs a publish token carried none, or one the registry does
	// not hold.
	// Do: Send Authorization: Bearer with a token from runx registry token create.
	RegistryTokenInvalid Code = "registry_token_invalid"

	// RegistryTokenNotFound: The registry holds no publish token with the id given to revoke.
	// Do: List the registry's tokens with runx registry token list and give the id of one (the 16 hex
	// characters after runxreg_).
	RegistryTokenNotFound Code = "registry_token_not_found"

	// RegistryTokenRevoked: The publish token was revoked by the registry's operator; it publishes
	// nothing more.
	// Do: Ask the registry's operator for a new token (runx registry token create).
	RegistryTokenRevoked Code = "registry_token_revoked"

	// RegistryVersionExists: The version is already published; a published version never changes.
	// Do: Publish under a new version.
	RegistryVersionExists Code = "registry_version_exists"
)
