package host

import "syscall"

// pluginProcAttr starts a plugin in a process group of its own, so a
// signal to runx's group (Ctrl-C at a terminal, a group SIGTERM) reaches
// runx alone, which stops its plugins in order within the cleanup window;
// and it asks Linux to send the plugin SIGTERM when runx dies, however it
// died, so no plugin outlives its driver.
func pluginProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// killGroup kills what is left of a stopped plugin's process group: the
// children a plugin started and did not take with it. The group's id is
// the plugin's pid, which Linux does not hand out again while any member
// of the group lives.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
