//go:build linux || darwin

package receipt

import (
	"syscall"
	"time"
)

// processCPU is this process's user and system time so far: on a shared
// machine, steadier than wall time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
