// Package git is the first-party plugin serving git.log, git.show and
// git.diff over real repositories inside the reach. It drives the git
// binary with exact argv (no shell), a fixed environment (no system
// config, no prompts, no pager, no optional index writes), options that
// switch off what configuration could make a read run (fsmonitor, external
// diff, textconv, signature checks), a timeout and bounded output.
//
// Paths pass the fs plugin's containment rules, and the worktree's top must
// lie inside the reach as well. Secrets, by the same rules fs.read applies,
// are left out of every patch with exclude pathspecs and out of every
// change list, and named under omitted_secrets with the pattern that
// matched.
//
// It imports the SDK and the fs plugin's containment rules, never kernel
// packages.
package git
