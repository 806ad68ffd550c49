package errcode

// Registry client: What runx refuses when it talks to a registry: its URL, its answers, publishing to it
// and installing from it.
const (
	// RegistryDigestMismatch: The version the registry serves has another content digest than --digest
	// names.
	// Do: Check the digest you were given; install nothing until they agree.
	RegistryDigestMismatch Code = "registry_digest_mismatch"

	// RegistryInsecureURL: The registry URL is plain http:// to a host that is not this machine.
	// Do: Use https://, or http:// only to localhost or a loopback address.
	RegistryInsecureURL Code = "registry_insecure_url"

	// RegistryPublishMismatch: The registry recorded another ref or content digest than the package
	// runx sent.
	// Do: Do not use that version; report the registry.
	RegistryPublishMismatch Code = "registry_publish_mismatch"

	// RegistryPublisherAmbiguous: The publish token owns several namespaces and none was chosen.
	// Do: Name one with --publisher.
	RegistryPublisherAmbiguous Code = "registry_publisher_ambiguous"

	// RegistryRecordMismatch: The signed record the registry served names another package, kind or
	// version than the one asked for.
	// Do: Nothing was written; report the registry.
	RegistryRecordMismatch Code = "registry_record_mismatch"

	// RegistryRefInvalid: A registry ref is not <publisher>/<name>[@version] (a connector: its name,
	// optionally with @version).
	// Do: Write the ref in that form.
	RegistryRefInvalid Code = "registry_ref_invalid"

	// RegistryRefused: The registry refused the request with an answer runx does not know.
	// Do: Read the registry's reason in the message.
	RegistryRefused Code = "registry_refused"

	// RegistryResponseInvalid: The registry's answer is not the JSON document its API promises, or it
	// redirected the request.
	// Do: Check the URL names a runx registry; report the registry if it does.
	RegistryResponseInvalid Code = "registry_response_invalid"

	// RegistryResponseTooLarge: The registry's answer is over the size runx reads for it.
	// Do: Nothing was written; report the registry.
	RegistryResponseTooLarge Code = "registry_response_too_large"

	// RegistryTokenMissing: Publishing needs a publisher token and none is set.
	// Do: Export RUNX_REGISTRY_TOKEN, or store it with runx login --for publish --registry <url>.
	RegistryTokenMissing Code = "registry_token_missing"

	// RegistryURLInvalid: The registry URL is not an absolute http(s) URL without credentials, query or
	// fragment.
	// Do: Give the registry's base URL, e.g. https://registry.example.
	RegistryURLInvalid Code = "registry_url_invalid"

	// RegistryUnreachable: runx could not reach the registry, or it did not answer in time.
	// Do: Check the URL and that the registry is up, then try again.
	RegistryUnreachable Code = "registry_unreachable"

	// RegistryVersionNotFound: The registry holds no such package or version.
	// Do: Check the ref with runx registry search.
	RegistryVersionNotFound Code = "registry_version_not_found"

	// RegistryVersionUnreadable: Every version the registry holds of the package uses a package format
	// newer than this runx reads.
	// Do: Upgrade runx, or name an older version that it reads.
	RegistryVersionUnreadable Code = "registry_version_unreadable"
)
