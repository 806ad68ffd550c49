package root

import (
	"os"
	"syscall"
)

// interruptOnParentDeath asks Linux to send this process SIGINT when the
// process that started it dies, so an orphaned driver stops at once. A parent
// that died before the request was armed has already handed this process to
// init, so that case interrupts now.
func interruptOnParentDeath() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGINT), 0)
	if os.Getppid() == 1 {
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	}
}
