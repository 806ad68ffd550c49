package process

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/runxhq/runx/sdk/plugin"
)

// stopRequestFile marks a command someone asked to stop, so its end is
// recorded as stopped rather than killed by a signal from nowhere.
const stopRequestFile = "stop-requested"

// follower records a command.execute call as a process of kind command
// while it runs: named by its call, its output written to the process's
// log as it is read, under a lock this plugin holds for the command's life,
// so process.read and `runx process read` follow it by cursor and
// process.stop stops it.
type follower struct {
	dir  string
	lock *os.File
	log  *logWriter
}

// followCommand starts following a command, or returns nil when the call
// names no project state (the command still runs) or its process was
// already recorded.
func followCommand(call *plugin.Call, b *CommandBinding, argv []string, cwd, dir string, timeout time.Duration) *follower {
	if b.ProjectDir == "" {
		return nil
	}
	id := CommandProcessID(call.Context)
	pdir := processDir(b.ProjectDir, id)
	if err := os.MkdirAll(filepath.Dir(pdir), 0o700); err != nil {
		return nil
	}
	if err := os.Mkdir(pdir, 0o700); err != nil {
		return nil
	}
	lock, err := openLock(pdir)
	if err != nil {
		return nil
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil
	}
	actor := b.Actor
	if actor == "" {
		actor = DefaultActor
	}
	rec := &record{
		ProcessID: id, Kind: KindCommand, CallID: call.Context.CallID, RunID: call.Context.RunID, Actor: actor,
		Argv: argv, Cwd: cwd, Dir: dir, MaxSeconds: int64(timeout / time.Second), LogMaxBytes: LogMaxBytes, CreatedAt: now(),
	}
	if err := writeJSONAtomic(filepath.Join(pdir, recordFile), rec, true); err != nil {
		lock.Close()
		return nil
	}
	lw, err := openLogWriter(pdir, LogMaxBytes)
	if err != nil {
		lock.Close()
		return nil
	}
	return &follower{dir: pdir, lock: lock, log: lw}
}

// streams are the log's stdout and stderr; a log that fails to write never
// fails the command, whose own bounded output is its answer.
func (f *follower) streams() (io.Writer, io.Writer) {
	return bestEffort{streamWriter{f.log, streamStdout}}, bestEffort{streamWriter{f.log, streamStderr}}
}

type bestEffort struct{ w io.Writer }

func (b bestEffort) Write(p []byte) (int, error) {
	_, _ = b.w.Write(p)
	return len(p), nil
}

func (f *follower) started(pid int) {
	_ = writeJSONAtomic(filepath.Join(f.dir, confirmedFile), &confirmation{SupervisorPID: os.Getpid(), PID: pid, PGID: pid, StartedAt: now()}, true)
}

// stopRequested reports whether process.stop asked this command to stop.
func (f *follower) stopRequested() bool {
	_, err := os.Stat(filepath.Join(f.dir, stopRequestFile))
	return err == nil
}

// ended records how the command ended and lets its lock go.
func (f *follower) ended(o *outcome, failure *plugin.Result) {
	x := exitRecord{State: StateExited, EndedAt: now()}
	switch {
	case failure != nil:
		x.State, x.Message = StateFailed, failure.Message
	case o.stopped:
		x.State = StateStopped
	case o.timedOut:
		x.State = StateTimedOut
	}
	if o != nil && failure == nil {
		if o.signal != "" {
			x.Signal = o.signal
		} else {
			code := o.exitCode
			x.ExitCode = &code
		}
	}
	_ = f.log.close()
	if err := writeJSONAtomic(filepath.Join(f.dir, exitFile), &x, true); err != nil && !errors.Is(err, os.ErrExist) {
		_ = err // the command's own answer still says how it ended
	}
	_ = f.lock.Close()
}

// requestStop marks a command to stop and terminates its group, then kills
// it after the grace.
func requestStop(v *view) {
	_ = os.WriteFile(filepath.Join(v.dir, stopRequestFile), nil, 0o600)
	if v.confirmed != nil {
		stopGroup(v.confirmed.PGID)
	}
}
