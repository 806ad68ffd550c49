// Package fs is the first-party plugin serving the workspace file tools:
// fs.read, fs.list and fs.search (the read side; fs.edit, fs.write and
// fs.apply_bundle arrive later).
//
// It owns containment for these tools: every path resolves, with every
// symlink followed, to a place inside the workspace or (under reach inputs)
// inside a root the run's inputs name; .git and .runx are closed under
// reach workspace; and no tool reads, lists or searches a secret at any
// reach (containment.go, secret.go). Listings and searches honour ignore
// files as Git does (ignore.go, a port of Git's wildmatch in wildmatch.go)
// and never enter .git, .runx or a nested worktree unless the request
// names a path inside it. The git plugin reuses the secret rules, so a
// patch leaves out exactly what fs.read would refuse.
//
// It imports the SDK only, never kernel packages.
package fs
