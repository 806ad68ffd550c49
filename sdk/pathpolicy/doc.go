// Package pathpolicy is runx's one set of path rules, shared by the kernel's
// authority and every plugin that touches workspace paths (fs, git,
// process), so no two layers can disagree about what is contained or what is
// a secret:
//
//   - containment (Scope): a call's paths stay inside the workspace, or
//     under reach inputs the roots the run's inputs name; symlinks are
//     followed to where they land, dangling ones included; .git and .runx
//     are never opened under reach workspace; the call's protected roots
//     (runx's home, the project's state, the receipt store, wherever they
//     lie) are never opened at any reach, nor shown by a listing;
//   - secrets (SecretName, SecretPath, SecretContent): environment files
//     other than templates, private keys by name or by content under any
//     name, key and certificate bundles, credential files (.npmrc, .netrc,
//     _netrc, .pgpass, .envrc, .git-credentials) and cloud credentials by
//     content (AWS keys, service-account keys), at any reach.
//
// It imports only the standard library and sdk/plugin (for typed refusals).
package pathpolicy
