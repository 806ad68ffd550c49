package root

import "syscall"

// interruptOnParentDeath asks Linux to send this process SIGINT when the
// process that started it dies, so an orphaned driver stops at once. It is
// armed at the top of main; a parent that dies earlier than that is not seen
// (checking for a parent of pid 1 instead would misfire in a container whose
// init is a shell).
func interruptOnParentDeath() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGINT), 0)
}
