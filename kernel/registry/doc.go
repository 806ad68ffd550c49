// Package registry owns what a registry package is and how runx trusts one:
// the publish artifact (Build, BuildFiles), the signed record a registry
// returns for each published version (Record, Sign, Verify), the trust
// store of keys scoped to publisher namespaces (Trust), and the write-once
// install into a project (Install, VerifyInstalled).
//
// A package is a skill directory (SKILL.md, run.yaml, its files and the
// connectors it carries under connectors/) or a connector directory
// (connector.yaml at its root). Its artifact lists every file with its
// sha256 digest, size and whether it is executable (its owner may execute
// it, as git records it: the one mode bit a package carries), sorted by
// slash path, and the content digest is sdk/canon's digest over that list.
// An install writes an executable file 0755 and any other 0644;
// VerifyInstalled and the install's repackaging hold each file's bit to the
// record's, and a setuid, setgid or sticky bit is refused by name. runx.package.json is one of the files:
// Build synthesizes it from {kind, name, version, package_format} (a
// connector's omits version, since a connector's version is "sha-" and the
// first 12 hex digits of the content digest, which covers the file), and a
// package that holds one with other bytes is refused. Build writes nothing.
//
// Left out by name, and listed in the artifact's "excluded": directories
// named .git, .runx and node_modules, files named .DS_Store, and
// signature.json at the package root (the signed record, never part of what
// it signs). Refused with a typed code (sdk/errcode, area registry): a
// symbolic link, a special file, a path that escapes the package ("..",
// absolute, a backslash, not clean), more than MaxFiles files, a file over
// MaxFileBytes, a package over MaxPackageBytes, a name that cannot name a
// directory, a skill version that is not semver, and what kernel/pkg refuses
// when it loads the package (a skill with several methods, one without a
// description, is refused naming the method). A skill's version is its
// SKILL.md front matter `version`; Build accepts a skill without one so
// `runx registry package` can show it, and CheckPublish refuses it: the
// publish paths (client and server) call CheckPublish.
//
// A skill binds the connectors it carries (connectors/<name>/) by ref,
// version, manifest_digest and connector_digest, sent through the runtime's
// connector.request capability; a connector its steps call but do not carry
// is listed with runtime_capability naming it alone: the runtime provides it
// (store, web, artifact).
//
// An installed connector loads (LoadAddedConnector, ConnectorVerifier for
// kernel/pkg) only once VerifyInstalled holds for its directory under the
// runx home's trust store, with the manifest and connector digests its
// record states; its connector digest leaves out runx.package.json and
// signature.json, which are the registry's files, not the connector's.
//
// A record is signed with ed25519 over sdk/canon's canonical bytes of the
// record with "signature" removed. Verify checks the record's shape, then
// the signature under a key the trust store holds for that registry AND that
// publisher namespace (a key trusted for another namespace is refused), then
// that the files are exactly the files the record names. Install verifies,
// stages the files in a sibling directory, repackages the staged files and
// compares them with the record, writes signature.json and renames the
// version directory into place; a version directory is written once. A
// refused install leaves nothing behind.
//
// Where this differs from the contract the registry's helpers agreed:
// Verify takes the files as a map and VerifyInstalled reads a directory;
// a package also lists what it left out ("excluded"); packages and records
// of connectors carry "operations" (each operation's name, verb and
// digest) and a connector's methods are its operations; a connector's
// runx.package.json has no version; Build refuses a skill version that is
// present and not semver, and CheckPublish one that is absent; an install
// also refuses a record whose description, methods, connectors or
// operations are not what its files hold (registry_record_invalid); an
// installed copy may hold a .DS_Store besides its signed files; a file
// records its executable bit ("executable": true), and BuildFiles takes the
// executable files' paths after the bytes.
//
// registry is a pure library over files: it imports kernel/pkg, sdk/canon,
// sdk/errcode and sdk/atomicfile, never kernel/run and never net/http.
package registry
