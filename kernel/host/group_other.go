//go:build unix && !linux

package host

import "syscall"

// pluginProcAttr starts a plugin in a process group of its own (see
// group_linux.go); there is no parent-death signal to arm here.
func pluginProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of a stopped plugin's process group.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
