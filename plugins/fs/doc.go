// Package fs is the first-party plugin serving the workspace file tools:
// fs.read, fs.list and fs.search (the read side), and fs.write, fs.edit,
// fs.apply_bundle, fs.preview and fs.recover (the change side).
//
// It owns containment for these tools: every path resolves, with every
// symlink followed, to a place inside the workspace or (under reach inputs)
// inside a root the run's inputs name; .git and .runx are closed under
// reach workspace; and no tool reads, writes, lists or searches a secret at
// any reach (containment.go, secret.go). Listings and searches honour
// ignore files as Git does (ignore.go, a port of Git's wildmatch in
// wildmatch.go) and never enter .git, .runx or a nested worktree unless the
// request names a path inside it. The git plugin reuses the secret rules,
// so a patch leaves out exactly what fs.read would refuse.
//
// Every change is bound to what it was written against (change.go): a file
// that exists is replaced or deleted only when the call names its digest.
// Changes are applied whole or not at all (commit.go): under a commit lock
// beside the journals, a journal recording each file's prior bytes and the
// directories the call creates is made durable before the first rename
// (journal.go), each digest is checked again immediately before its atomic
// rename, and the journal is marked committed after the last. A process
// that dies in between leaves the journal begun, and fs.recover rolls it
// back from what it recorded (rollback.go). fs.preview shows the exact
// change with complete unified diffs, for an approval gate (preview.go).
//
// It imports the SDK only, never kernel packages.
package fs
