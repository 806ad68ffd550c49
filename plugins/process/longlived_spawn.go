package process

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// supervisorCommand is how a supervisor is started: the runx binary (or a
// test binary that dispatches the same way) with `process supervise`.
var supervisorCommand = func(dir string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(self, "process", "supervise", dir), nil
}

// errStartExists is a start whose call was already recorded.
var errStartExists = errors.New("the call's start is already recorded")

// spawn records a start and starts its supervisor, handing it the lock the
// record was written under, so no moment passes in which the record stands
// with its lock free and the start could be settled as failed while it is
// still starting. It waits for the supervisor's word.
func spawn(dir string, rec *record) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		if errors.Is(err, os.ErrExist) {
			return errStartExists
		}
		return err
	}
	lock, err := openLock(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fmt.Errorf("the new process's lock is taken: %w", err)
	}
	if err := writeJSONAtomic(filepath.Join(dir, recordFile), rec, true); err != nil {
		return err
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer readyR.Close()
	logFile, err := os.OpenFile(filepath.Join(dir, "supervisor.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		readyW.Close()
		return err
	}
	defer logFile.Close()
	cmd, err := supervisorCommand(dir)
	if err != nil {
		readyW.Close()
		return err
	}
	cmd.ExtraFiles = []*os.File{lock, readyW}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Dir = dir
	// Its own session: no terminal hangup, no signal to the plugin's group
	// and no kill of the kernel's plugins reaches it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return fmt.Errorf("the supervisor could not start: %w", err)
	}
	// Reap it if it ends while this plugin lives; otherwise init does.
	go func() { _ = cmd.Wait() }()
	// The lock now lives on in the supervisor's copy of the descriptor.
	lock.Close()
	word := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(readyR).ReadString('\n')
		word <- strings.TrimSpace(line)
	}()
	select {
	case w := <-word:
		if w == "ok" {
			return nil
		}
		if w == "" {
			return errors.New("the supervisor ended before it confirmed the start")
		}
		return errors.New(strings.TrimPrefix(w, "failed: "))
	case <-time.After(startConfirmTimeout):
		return errors.New("the supervisor did not confirm the start in time")
	}
}

// awaitConfirmed waits while a start's lock is held and it is neither
// confirmed nor ended (its supervisor is still starting it).
func awaitConfirmed(v *view, now func() time.Time) error {
	deadline := time.Now().Add(startConfirmTimeout)
	for v.confirmed == nil && v.exit == nil {
		if time.Now().After(deadline) {
			return errors.New("the supervisor did not confirm the start in time")
		}
		time.Sleep(20 * time.Millisecond)
		if err := v.reload(); err != nil {
			return err
		}
		if v.confirmed == nil && v.exit == nil {
			if err := v.settle(now); err != nil {
				return err
			}
		}
	}
	return nil
}
