package process

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// The supervisor is the runx binary run again (`runx process supervise
// <dir>`, hidden) in a session of its own, so a process outlives the call,
// the plugin and the run that started it. It inherits the process's lock
// (fd 3), already held by its starter, and a pipe (fd 4) on which it says
// whether the child started; it owns the child, writes its output to the
// log, answers its control socket, stops it at max_seconds, and records how
// it exited before letting the lock go.

// stopGrace is how long a stopped process has between TERM and KILL.
const stopGrace = 5 * time.Second

// supervisorFDs are the descriptors a supervisor inherits.
const (
	supervisorLockFD  = 3
	supervisorReadyFD = 4
)

// Supervise is `runx process supervise <dir>`; it returns the exit code.
func Supervise(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "runx: `runx process supervise` is started by runx itself, not by hand [usage_error]")
		return 2
	}
	dir := args[0]
	lock, ready, err := inheritedFiles(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "runx: `runx process supervise` is started by runx itself, not by hand: %v [usage_error]\n", err)
		return 2
	}
	defer lock.Close()
	s := &supervisor{dir: dir, done: make(chan struct{})}
	if err := s.run(ready); err != nil {
		fmt.Fprintf(os.Stderr, "runx process supervise %s: %v\n", dir, err)
		return 1
	}
	return 0
}

// inheritedFiles checks that fd 3 is dir's lock, held, and returns it with
// the ready pipe; neither reaches the child.
func inheritedFiles(dir string) (*os.File, *os.File, error) {
	var st, want syscall.Stat_t
	if err := syscall.Fstat(supervisorLockFD, &st); err != nil {
		return nil, nil, fmt.Errorf("no lock descriptor: %w", err)
	}
	if err := syscall.Stat(filepath.Join(dir, lockFile), &want); err != nil || st.Ino != want.Ino || st.Dev != want.Dev {
		return nil, nil, errors.New("descriptor 3 is not this process's lock")
	}
	// The lock is held through the starter's open file description, so
	// taking it again on the same description succeeds at once.
	if err := syscall.Flock(supervisorLockFD, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil, nil, fmt.Errorf("the lock is not held for this supervisor: %w", err)
	}
	syscall.CloseOnExec(supervisorLockFD)
	syscall.CloseOnExec(supervisorReadyFD)
	return os.NewFile(supervisorLockFD, "lock"), os.NewFile(supervisorReadyFD, "ready"), nil
}

type supervisor struct {
	dir string
	rec record
	log *logWriter
	cmd *exec.Cmd

	mu       sync.Mutex
	stdin    *os.File // a pipe's writer, or the terminal
	term     *os.File // the terminal, when there is one
	applied  map[string]int
	stopping State // the state a stop ends in: stopped or timed_out
	done     chan struct{}
}

func (s *supervisor) run(ready *os.File) error {
	if err := readJSON(filepath.Join(s.dir, recordFile), &s.rec); err != nil {
		fmt.Fprintf(ready, "failed: the record is unreadable: %v\n", err)
		return err
	}
	var err error
	if s.log, err = openLogWriter(s.dir, s.rec.LogMaxBytes); err != nil {
		return s.failStart(ready, fmt.Sprintf("the log cannot be opened: %v", err))
	}
	defer s.log.close()
	s.applied = map[string]int{}
	// The child dies with its supervisor (Pdeathsig), whose thread that
	// started it therefore must not exit first.
	runtime.LockOSThread()
	// Catching SIGINT and SIGHUP before the start gives the child their
	// default actions: a supervisor started with them ignored (a shell's
	// background job, nohup) would otherwise hand the ignoring on, and
	// Ctrl-C in the child's terminal would do nothing.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pumped, err := s.start()
	if err != nil {
		return s.failStart(ready, err.Error())
	}
	c := confirmation{SupervisorPID: os.Getpid(), PID: s.cmd.Process.Pid, PGID: s.cmd.Process.Pid, StartedAt: time.Now().UTC()}
	if err := writeJSONAtomic(filepath.Join(s.dir, confirmedFile), &c, true); err != nil {
		_ = syscall.Kill(-c.PGID, syscall.SIGKILL)
		_ = s.cmd.Wait()
		return s.failStart(ready, fmt.Sprintf("the start cannot be confirmed: %v", err))
	}
	ln, lnErr := listenControl(s.dir)
	if lnErr == nil {
		go s.serve(ln)
		defer ln.Close()
	}
	fmt.Fprintln(ready, "ok")
	ready.Close()

	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	go func() {
		for range signals {
			s.stop(StateStopped)
		}
	}()
	limit := time.AfterFunc(time.Duration(s.rec.MaxSeconds)*time.Second, func() { s.stop(StateTimedOut) })
	waitErr := s.cmd.Wait()
	limit.Stop()
	close(s.done)
	// Nothing of the process's group outlives its leader.
	_ = syscall.Kill(-c.PGID, syscall.SIGKILL)
	s.drain(pumped)
	if ln != nil {
		ln.Close()
		_ = os.Remove(filepath.Join(s.dir, socketFile))
	}
	return s.recordExit(waitErr)
}

// start starts the child, in a pseudo-terminal when the record asks for
// one; the returned channel closes when its output is all in the log.
func (s *supervisor) start() (<-chan struct{}, error) {
	r := &s.rec
	cmd := exec.Command(r.Argv[0], r.Argv[1:]...)
	cmd.Path = r.Path
	cmd.Dir = r.Dir
	cmd.Env = []string{}
	for k, v := range r.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	s.cmd = cmd
	pumped := make(chan struct{})
	if r.TTY != nil {
		term, err := pty.StartWithAttrs(cmd, &pty.Winsize{Rows: uint16(r.TTY.Rows), Cols: uint16(r.TTY.Cols)},
			ttyChildAttr())
		if err != nil {
			return nil, fmt.Errorf("command %q could not start in a terminal: %w", r.Argv[0], err)
		}
		s.term, s.stdin = term, term
		go func() {
			defer close(pumped)
			_, _ = io.Copy(streamWriter{s.log, streamTerminal}, term)
		}()
		return pumped, nil
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = stdinR
	cmd.Stdout = streamWriter{s.log, streamStdout}
	cmd.Stderr = streamWriter{s.log, streamStderr}
	// A grandchild holding a pipe cannot keep the supervisor waiting.
	cmd.WaitDelay = 2 * time.Second
	cmd.SysProcAttr = pipeChildAttr()
	err = cmd.Start()
	stdinR.Close()
	if err != nil {
		stdinW.Close()
		return nil, fmt.Errorf("command %q could not start: %w", r.Argv[0], err)
	}
	s.stdin = stdinW
	close(pumped) // exec's own copiers finish before Wait returns
	return pumped, nil
}

// drain waits for a terminal's last output once its group is gone.
func (s *supervisor) drain(pumped <-chan struct{}) {
	select {
	case <-pumped:
	case <-time.After(2 * time.Second):
		if s.term != nil {
			s.term.Close()
		}
		<-pumped
	}
}

// stop terminates the process group, then kills it after the grace period.
func (s *supervisor) stop(state State) {
	s.mu.Lock()
	if s.stopping == "" {
		s.stopping = state
	}
	s.mu.Unlock()
	pgid := s.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	go func() {
		select {
		case <-s.done:
		case <-time.After(stopGrace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}()
}

func (s *supervisor) failStart(ready *os.File, msg string) error {
	x := exitRecord{State: StateFailed, Message: msg, EndedAt: time.Now().UTC()}
	_ = writeJSONAtomic(filepath.Join(s.dir, exitFile), &x, true)
	fmt.Fprintf(ready, "failed: %s\n", msg)
	ready.Close()
	return errors.New(msg)
}

func (s *supervisor) recordExit(waitErr error) error {
	s.mu.Lock()
	state := s.stopping
	s.mu.Unlock()
	if state == "" {
		state = StateExited
	}
	x := exitRecord{State: state, EndedAt: time.Now().UTC()}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
		code := 0
		x.ExitCode = &code
	case errors.As(waitErr, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			x.Signal = ws.Signal().String()
		} else {
			code := exitErr.ExitCode()
			x.ExitCode = &code
		}
	case errors.Is(waitErr, exec.ErrWaitDelay):
		code := s.cmd.ProcessState.ExitCode()
		x.ExitCode = &code
	default:
		x.Message = waitErr.Error()
	}
	return writeJSONAtomic(filepath.Join(s.dir, exitFile), &x, true)
}
