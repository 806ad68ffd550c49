//go:build linux

package host

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// launchers is true where runx starts third-party plugins through its
// launcher.
const launchers = true

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// termGrace is how long a plugin has, once its driver is gone, between
// the SIGTERM the launcher passes on and the SIGKILL of everything it
// started: a plugin built with the sdk stops its kept processes then.
const termGrace = 500 * time.Millisecond

// launch is the launcher's whole life. runx started it leading a process
// group of its own, with SIGTERM as its parent-death signal. It makes
// itself the subreaper of everything below it, so a process whose parent
// dies is handed to it rather than to init; starts the plugin in its
// group, with SIGKILL as the plugin's parent-death signal, and stdin,
// stdout (the handshake line go-plugin reads) and stderr passed through
// untouched; then waits. When the plugin exits, or runx dies (SIGTERM),
// it kills every process left in its group and every process handed to
// it, until none is left, and exits with the plugin's status. What runx
// records as the plugin's pid is the launcher's, the group's leader, which
// runx's own stop kills with its group as before.
func launch(pin, path string, argv []string) int {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		fmt.Fprintf(os.Stderr, "runx plugin launcher: cannot become a subreaper: %v\n", e)
		return 1
	}
	f, err := openPinned(pin, path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "runx plugin launcher: %s: %v\n", path, err)
		if errors.Is(err, errChecksum) {
			return launchExitChecksum
		}
		return 1
	}
	// The plugin is executed from the descriptor its bytes were checked
	// through. It is close-on-exec here, so the plugin does not inherit it:
	// the path names the launcher's copy, which stays open while the plugin
	// runs (an interpreter opens a script through it after the exec).
	defer f.Close()
	exe := "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(int(f.Fd()))
	pid, err := syscall.ForkExec(exe, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "runx plugin launcher: cannot start %s: %v\n", path, err)
		return 1
	}
	code, done := 0, false
	reapPlugin := func() {
		if s, ok := reap(pid); ok {
			code, done = exitCode(s), true
		}
	}
	for !done {
		select {
		case <-chld:
			reapPlugin()
		case <-term:
			_ = syscall.Kill(pid, syscall.SIGTERM)
			grace := time.NewTimer(termGrace)
			for !done {
				select {
				case <-chld:
					reapPlugin()
				case <-grace.C:
					code, done = 128+int(syscall.SIGKILL), true
				}
			}
			grace.Stop()
		}
	}
	sweep(chld)
	return code
}

// exitCode is a shell's reading of a wait status.
func exitCode(s syscall.WaitStatus) int {
	if s.Signaled() {
		return 128 + int(s.Signal())
	}
	return s.ExitStatus()
}

// reap collects every child that has exited, and reports the plugin's
// status if it was among them.
func reap(plugin int) (syscall.WaitStatus, bool) {
	var got syscall.WaitStatus
	found := false
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return got, found
		}
		if pid == plugin {
			got, found = ws, true
		}
	}
}

// sweep kills every process below the launcher: its children (the plugin,
// and every orphan handed to it) and the members of its group, round after
// round, until it has no child left and no live process remains in its
// group. A killed process's own children are handed to the launcher when
// it dies, and are killed in the next round; a process killed with
// SIGKILL starts no other.
func sweep(chld <-chan os.Signal) {
	self := os.Getpid()
	leads := syscall.Getpgrp() == self
	for {
		live := 0
		for _, p := range below(self, leads) {
			_ = syscall.Kill(p, syscall.SIGKILL)
			live++
		}
		childless := false
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			childless = errors.Is(err, syscall.ECHILD)
			if err != nil || pid <= 0 {
				break
			}
		}
		if live == 0 && childless {
			return
		}
		select {
		case <-chld:
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// below lists the live processes whose parent is the launcher, or that are
// in its group when it leads one, from /proc. A zombie is left out: it has
// handed its children on already, and its parent reaps it.
func below(self int, leads bool) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parens.
		i := bytes.LastIndexByte(raw, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(raw[i+1:])
		if len(fields) < 3 || string(fields[0]) == "Z" || string(fields[0]) == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(string(fields[1]))
		pgrp, _ := strconv.Atoi(string(fields[2]))
		if ppid == self || leads && pgrp == self {
			out = append(out, pid)
		}
	}
	return out
}
