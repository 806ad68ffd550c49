package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// spec is one process to supervise, whichever capability asked for it.
type spec struct {
	argv      []string
	dir       string
	env       map[string]string
	stdin     *string
	timeout   time.Duration
	maxStdout int64
	maxStderr int64
	// stdoutTail keeps the end of an overlong stdout and lets the process
	// finish: a command's output is for a person to read, and its end is
	// where a build or a test run says how it went. A process tool's stdout
	// is its answer, which is refused whole rather than cut.
	stdoutTail bool
	// follow, when set, records the process and its output as it runs.
	follow *follower
	// searchPath is the PATH argv[0] is looked up in when it names no
	// directory: the environment the process will run with, not the
	// plugin's.
	searchPath string
}

// outcome is what a supervised process did.
type outcome struct {
	exitCode        int
	signal          string
	stdout, stderr  string
	stdoutTruncated bool
	stderrTruncated bool
	durationMS      int64
	timedOut        bool
	stopped         bool
}

// supervised is one process group under supervision.
type supervised struct {
	mu      sync.Mutex
	pgid    int
	stopped bool
}

func (s *supervised) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pgid > 0 {
		_ = syscall.Kill(-s.pgid, sig)
	}
}

// stop terminates the group, then kills it after a grace period.
func (s *supervised) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.signal(syscall.SIGTERM)
	time.AfterFunc(processKillGraceMS*time.Millisecond, func() { s.signal(syscall.SIGKILL) })
}

// boundedBuffer keeps at most limit bytes and notes that more came.
type boundedBuffer struct {
	buf      bytes.Buffer
	limit    int64
	tail     bool
	exceeded bool
	onExceed func()
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.limit - int64(b.buf.Len()); int64(len(p)) > room {
		if !b.tail {
			b.buf.Write(p[:max(room, 0)])
			if !b.exceeded {
				b.exceeded = true
				if b.onExceed != nil {
					b.onExceed()
				}
			}
			return n, nil
		}
		b.exceeded = true
		// keep the tail: drop from the front
		b.buf.Write(p)
		drop := int64(b.buf.Len()) - b.limit
		b.buf.Next(int(drop))
		return n, nil
	}
	b.buf.Write(p)
	return n, nil
}

// resolveCommand finds argv[0]: a path with a slash is taken relative to
// the working directory; a bare name is looked up in searchPath's absolute
// directories, as exec.LookPath does with the plugin's own PATH.
func resolveCommand(argv0, cwd, searchPath string) (string, error) {
	if strings.ContainsRune(argv0, '/') {
		if !filepath.IsAbs(argv0) {
			argv0 = filepath.Join(cwd, argv0)
		}
		return argv0, nil
	}
	for _, dir := range filepath.SplitList(searchPath) {
		if !filepath.IsAbs(dir) {
			continue
		}
		candidate := filepath.Join(dir, argv0)
		if info, err := os.Stat(candidate); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", exec.ErrNotFound
}

func (s *supervised) run(ctx context.Context, sp *spec) (*outcome, *plugin.Result) {
	path, err := resolveCommand(sp.argv[0], sp.dir, sp.searchPath)
	if err != nil {
		return nil, plugin.Failed(errcode.ProcessCommandNotFound, fmt.Sprintf("command %q was not found", sp.argv[0]))
	}
	cmd := exec.Command(path, sp.argv[1:]...)
	cmd.Args[0] = sp.argv[0]
	cmd.Dir = sp.dir
	cmd.Env = make([]string, 0, len(sp.env))
	for k, v := range sp.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if sp.stdin != nil {
		cmd.Stdin = strings.NewReader(*sp.stdin)
	}
	stdout := &boundedBuffer{limit: sp.maxStdout, tail: sp.stdoutTail}
	stderr := &boundedBuffer{limit: sp.maxStderr, tail: true}
	if !sp.stdoutTail {
		stdout.onExceed = func() { s.signal(syscall.SIGKILL) }
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if sp.follow != nil {
		logOut, logErr := sp.follow.streams()
		cmd.Stdout, cmd.Stderr = io.MultiWriter(stdout, logOut), io.MultiWriter(stderr, logErr)
	}
	// The group is killed as soon as the pipes' readers see the process
	// finish; WaitDelay keeps a grandchild holding a pipe from hanging us.
	cmd.WaitDelay = time.Second

	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, plugin.Failed(errcode.ProcessStartFailed, fmt.Sprintf("command %q could not start: %v", sp.argv[0], err))
	}
	s.mu.Lock()
	s.pgid = cmd.Process.Pid
	s.mu.Unlock()
	if sp.follow != nil {
		sp.follow.started(cmd.Process.Pid)
	}

	timer := time.AfterFunc(sp.timeout, func() { s.signal(syscall.SIGKILL) })
	defer timer.Stop()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			s.stop()
		case <-done:
		}
	}()
	waitErr := cmd.Wait()
	close(done)
	// Whatever the leader did, nothing of its group outlives the call.
	s.signal(syscall.SIGKILL)
	elapsed := time.Since(started)

	out := &outcome{
		stdout: stdout.buf.String(), stderr: stderr.buf.String(),
		stdoutTruncated: stdout.exceeded, stderrTruncated: stderr.exceeded,
		durationMS: elapsed.Milliseconds(),
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			out.signal = ws.Signal().String()
			out.exitCode = -1
		} else {
			out.exitCode = exitErr.ExitCode()
		}
	case errors.Is(waitErr, exec.ErrWaitDelay):
	default:
		return nil, plugin.Failed(errcode.ProcessWaitFailed, waitErr.Error())
	}
	s.mu.Lock()
	out.stopped = s.stopped
	s.mu.Unlock()
	if stdout.exceeded && !sp.stdoutTail {
		return nil, plugin.Failed(errcode.ProcessOutputTooLarge, fmt.Sprintf("command %q printed more than the %d byte output ceiling and was killed", sp.argv[0], sp.maxStdout))
	}
	if !out.stopped && elapsed >= sp.timeout && out.signal != "" {
		out.timedOut = true
	}
	return out, nil
}
