//go:build linux

package plugin

import (
	"os"
	"os/signal"
	"syscall"
)

// dieWithDriver makes the plugin, and every process of its process group,
// end when the runx that started it does, however that runx ended (SIGKILL
// included). Linux sends the plugin SIGTERM when its parent dies (armed
// here too, for a host that did not ask at the start); the plugin then
// stops the processes it keeps in groups of their own (ProcessStopper) and
// kills its own group, itself last among them. A runx host starts every
// plugin as the leader of a group of its own, so a child the plugin started
// and did not move out of that group dies with it: the same group the host
// kills when it stops the plugin itself.
func dieWithDriver(impl Plugin) {
	driver := os.Getppid()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM)
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
	if os.Getppid() != driver {
		// The driver died before the request was armed.
		signals <- syscall.SIGTERM
	}
	go func() {
		<-signals
		if s, ok := impl.(ProcessStopper); ok {
			s.StopAll()
		}
		// One kill for the whole group, so no member forks a child past a
		// scan of it. Only a group the plugin leads: otherwise the group is
		// its host's, which is not the plugin's to end.
		if pid := os.Getpid(); syscall.Getpgrp() == pid {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		os.Exit(128 + int(syscall.SIGTERM))
	}()
}
