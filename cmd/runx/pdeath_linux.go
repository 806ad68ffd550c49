//go:build linux

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// dieWithDriver makes a plugin process end when the runx that started it
// does, however that runx ended (SIGKILL included): Linux sends the plugin
// SIGTERM when its parent dies, and before it exits the plugin stops every
// process group it supervises (a plugin with an StopAll), so no orphan
// survives its driver.
func dieWithDriver(p any) {
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
		if s, ok := p.(interface{ StopAll() }); ok {
			s.StopAll()
		}
		os.Exit(int(syscall.SIGTERM) + 128)
	}()
}
