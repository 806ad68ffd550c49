package process

import "syscall"

// ttyChildAttr starts a supervised child in a terminal session of its own,
// killed with its supervisor.
func ttyChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Pdeathsig: syscall.SIGKILL}
}

// pipeChildAttr starts a supervised child in a process group of its own,
// killed with its supervisor.
func pipeChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
