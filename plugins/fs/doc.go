// Package fs is the first-party plugin serving the workspace file tools:
// fs.read, fs.list and fs.search (the read side), and fs.write, fs.edit and
// fs.apply_bundle (the change side), which also answer the Preview and
// Recover RPCs.
//
// Containment is sdk/pathpolicy's, shared with git, process and the
// kernel's authority: every path resolves, with every
// symlink followed, to a place inside the workspace or (under reach inputs)
// inside a root the run's inputs name; .git and .runx are closed under
// reach workspace; and no tool reads, writes, lists or searches a secret at
// any reach. Listings and searches honour
// ignore files as Git does (ignore.go, a port of Git's wildmatch in
// wildmatch.go) and never enter .git, .runx or a nested worktree unless the
// request names a path inside it. The git plugin uses the same secret
// rules, so a patch leaves out exactly what fs.read would refuse.
//
// Every change is bound to what it was written against (change.go): a file
// that exists is replaced or deleted only when the call names its digest.
// Changes are applied whole or not at all (commit.go): under a commit lock
// beside the journals, a journal recording each file's prior bytes and the
// directories the call creates is made durable before the first rename
// (journal.go), each digest is checked again immediately before its atomic
// rename, and the journal is marked committed after the last. A process
// that dies in between leaves the journal begun, and the Recover RPC rolls
// it back from what it recorded (rollback.go). The Preview RPC answers the
// exact change as a runx.change_set.v1 with complete unified diffs and both
// digests, for an approval gate (changeset.go, diff.go).
//
// It imports the SDK only, never kernel packages.
package fs
