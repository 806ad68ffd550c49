// Package wslock is the workspace lock every run takes, across processes:
// a native tool that only reads shares it, and a command, a process tool
// and a native file change hold it alone, so two runs' commands never
// overlap and two runs' changes to one file cannot both pass its check.
//
// It is a pair of flock(2) locks in the project directory (.runx), which the
// operating system drops when the holder dies, so a crash never strands
// the workspace. A queued writer closes a turnstile that new readers wait
// behind, so a stream of reads cannot starve a write.
//
// An exclusive hold carries a random token. The kernel hands it to a
// process it runs under the hold as RUNX_WORKSPACE_LOCK_TOKEN; a runx
// started by that process passes it to AcquireJoining and joins the hold
// instead of waiting on its own parent. The token is honoured only while
// the hold that made it lasts.
//
// Holds are not re-entrant and not upgradable: a process holding the lock
// shared that asks for it alone waits on itself. The kernel takes it per
// step or call and releases it before the next.
//
// It imports no other runx package.
package wslock
