package root

import "syscall"

// interruptOnParentDeath asks Linux to send this process SIGINT when the
// process that started it dies, so an orphaned driver stops at once.
func interruptOnParentDeath() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGINT), 0)
}
