//go:build unix && !linux

package process

import "syscall"

// ttyChildAttr starts a supervised child in a terminal session of its own.
// There is no parent-death signal to arm here, so a child can outlive a
// supervisor killed with SIGKILL (one stopped by a signal it can catch
// still stops its child's group first).
func ttyChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}

// pipeChildAttr starts a supervised child in a process group of its own
// (no parent-death signal here, as for ttyChildAttr).
func pipeChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
