package errcode

// Credentials and secrets: Secrets in the runx home and connector bindings that deliver them.
const (
	// BindingSecretRefused: A data source binding holds a secret instead of naming a credential
	// profile.
	// Do: Name a profile in the binding and store the secret with runx secret set.
	BindingSecretRefused Code = "binding_secret_refused"

	// ConnectorBindingsInvalid: The connector bindings file is not a bindings document.
	// Do: Move the file aside and run runx connector use again.
	ConnectorBindingsInvalid Code = "connector_bindings_invalid"

	// ConnectorBindingsUnreadable: The connector bindings file cannot be read.
	// Do: Check the file's permissions.
	ConnectorBindingsUnreadable Code = "connector_bindings_unreadable"

	// ConnectorNameInvalid: A connector name has characters it may not hold.
	// Do: Use letters, digits, '.', '-', '_', namespaced at most once with '/'.
	ConnectorNameInvalid Code = "connector_name_invalid"

	// CredentialBindingInvalid: A connector binding names both or neither of an environment variable
	// and a stored secret.
	// Do: Name exactly one of them.
	CredentialBindingInvalid Code = "credential_binding_invalid"

	// CredentialMissing: A credential the call needs is not delivered: its variable is unset or its
	// secret is not stored.
	// Do: Export the variable or store the secret the message names.
	CredentialMissing Code = "credential_missing"

	// CredentialSourceAmbiguous: More than one source was given for one credential.
	// Do: Give one of --env, --secret or a value on standard input.
	CredentialSourceAmbiguous Code = "credential_source_ambiguous"

	// CredentialUnsupported: A data source names a credential profile, but its adapter takes no
	// credentials.
	// Do: Drop the profile from the data source.
	CredentialUnsupported Code = "credential_unsupported"

	// CredentialVariableInvalid: A name given as an environment variable is not a valid variable name.
	// Do: Use letters, digits and '_' not starting with a digit.
	CredentialVariableInvalid Code = "credential_variable_invalid"

	// SecretEmpty: No secret was given on standard input.
	// Do: Pipe the secret in: runx secret set <name> reads it from standard input.
	SecretEmpty Code = "secret_empty"

	// SecretInvalid: A secret holds more than one line or a NUL byte.
	// Do: Store a one-line secret.
	SecretInvalid Code = "secret_invalid"

	// SecretNameInvalid: A secret name has characters it may not hold.
	// Do: Use letters, digits, '.', '-' and '_' (at most 128, starting with a letter or digit).
	SecretNameInvalid Code = "secret_name_invalid"

	// SecretPermissionsUnsafe: A stored secret's file is readable by others, so runx refuses it.
	// Do: Run the chmod the message gives, and rotate the secret if others could read it.
	SecretPermissionsUnsafe Code = "secret_permissions_unsafe"

	// SecretUnreadable: A stored secret, or standard input, cannot be read.
	// Do: Check the file's permissions, or store the secret again.
	SecretUnreadable Code = "secret_unreadable"
)
