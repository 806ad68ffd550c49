package errcode

// Registry: Packaging, signing, trusting and installing registry skills and connectors.
const (
	// RegistryFileTooLarge: A package file is over the registry's per-file ceiling (8 MiB).
	// Do: Move the large content out of the package, or fetch it at run time.
	RegistryFileTooLarge Code = "registry_file_too_large"

	// RegistryFileModeUnsupported: A package file has a setuid, setgid or sticky bit; a package records only whether a file is executable.
	// Do: Clear the bit the message names (chmod u-s, g-s or -t) and package it again.
	RegistryFileModeUnsupported Code = "registry_file_mode_unsupported"

	// RegistryFileUnsupported: A package holds a file that is neither a regular file nor a directory (a device, a socket, a pipe).
	// Do: Remove it from the package directory.
	RegistryFileUnsupported Code = "registry_file_unsupported"

	// RegistryKeyUntrusted: A signed record's key is not trusted for its registry and publisher namespace.
	// Do: Trust the registry's key for that namespace with runx registry trust add, if you mean to.
	RegistryKeyUntrusted Code = "registry_key_untrusted"

	// RegistryNameInvalid: A package, publisher or connector name cannot name a registry package.
	// Do: Use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit.
	RegistryNameInvalid Code = "registry_name_invalid"

	// RegistryPackageAltered: A package's bytes are not the bytes its signed record names.
	// Do: Install the package again from its registry; never edit an installed package in place.
	RegistryPackageAltered Code = "registry_package_altered"

	// RegistryPackageInvalid: A directory or a set of files is not a registry package.
	// Do: Pass a skill directory, its SKILL.md, or a connector directory, as the message says.
	RegistryPackageInvalid Code = "registry_package_invalid"

	// RegistryPackageTooLarge: A package is over the registry's total size ceiling (64 MiB).
	// Do: Move large content out of the package.
	RegistryPackageTooLarge Code = "registry_package_too_large"

	// RegistryPathInvalid: A package file path escapes the package: '..', absolute, a backslash or not clean.
	// Do: Keep every file inside the package directory; refuse a registry that names such a path.
	RegistryPathInvalid Code = "registry_path_invalid"

	// RegistryRecordInvalid: A signed record (signature.json) is malformed or does not describe its package.
	// Do: Install the package again from its registry.
	RegistryRecordInvalid Code = "registry_record_invalid"

	// RegistrySignatureInvalid: A signed record's signature does not verify under the key it names.
	// Do: Install the package again from its registry; a record edited after signing is refused.
	RegistrySignatureInvalid Code = "registry_signature_invalid"

	// RegistrySymlinkRefused: A package holds a symbolic link.
	// Do: Replace it with the regular file it points at.
	RegistrySymlinkRefused Code = "registry_symlink_refused"

	// RegistryTooManyFiles: A package holds more files than the registry's ceiling (1,000).
	// Do: Remove files the package does not need.
	RegistryTooManyFiles Code = "registry_too_many_files"

	// RegistryTrustInvalid: The registry trust store, or a key or namespace pattern given to it, is malformed.
	// Do: Fix or remove <RUNX_HOME>/registry/trust.json, or give the key as ed25519:<base64>.
	RegistryTrustInvalid Code = "registry_trust_invalid"

	// RegistryVersionConflict: The version directory already holds other bytes than the package being installed.
	// Do: A version is written once: remove the installed copy if you mean to replace it.
	RegistryVersionConflict Code = "registry_version_conflict"

	// RegistryVersionInvalid: A skill's SKILL.md front matter declares no version, or one that is not semver.
	// Do: Declare version: MAJOR.MINOR.PATCH in the front matter.
	RegistryVersionInvalid Code = "registry_version_invalid"
)
