package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/runxhq/runx/sdk/plugin"
)

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

func resolveCommand(argv0, cwd string) (string, error) {
	if strings.ContainsRune(argv0, '/') {
		if !filepath.IsAbs(argv0) {
			argv0 = filepath.Join(cwd, argv0)
		}
		return argv0, nil
	}
	return exec.LookPath(argv0)
}

func (s *supervised) run(ctx context.Context, req *Request) (*Response, *plugin.Result) {
	path, err := resolveCommand(req.Argv[0], req.Cwd)
	if err != nil {
		return nil, plugin.Failed("process_command_not_found", fmt.Sprintf("command %q was not found", req.Argv[0]))
	}
	cmd := exec.Command(path, req.Argv[1:]...)
	cmd.Args[0] = req.Argv[0]
	cmd.Dir = req.Cwd
	cmd.Env = make([]string, 0, len(req.Env))
	for k, v := range req.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if req.Stdin != nil {
		cmd.Stdin = strings.NewReader(*req.Stdin)
	}
	stdout := &boundedBuffer{limit: req.MaxStdoutBytes}
	stderr := &boundedBuffer{limit: ProcessMaxStderrBytes, tail: true}
	stdout.onExceed = func() { s.signal(syscall.SIGKILL) }
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// The group is killed as soon as the pipes' readers see the process
	// finish; WaitDelay keeps a grandchild holding a pipe from hanging us.
	cmd.WaitDelay = time.Second

	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, plugin.Failed("process_start_failed", fmt.Sprintf("command %q could not start: %v", req.Argv[0], err))
	}
	s.mu.Lock()
	s.pgid = cmd.Process.Pid
	s.mu.Unlock()

	timer := time.AfterFunc(time.Duration(req.TimeoutMS)*time.Millisecond, func() { s.signal(syscall.SIGKILL) })
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

	resp := &Response{Stdout: stdout.buf.String(), Stderr: stderr.buf.String(), DurationMS: elapsed.Milliseconds()}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			resp.Signal = ws.Signal().String()
			resp.ExitCode = -1
		} else {
			resp.ExitCode = exitErr.ExitCode()
		}
	case errors.Is(waitErr, exec.ErrWaitDelay):
	default:
		return nil, plugin.Failed("process_wait_failed", waitErr.Error())
	}
	s.mu.Lock()
	resp.Stopped = s.stopped
	s.mu.Unlock()
	if stdout.exceeded {
		return nil, plugin.Failed("process_output_too_large", fmt.Sprintf("command %q printed more than the %d byte output ceiling and was killed", req.Argv[0], req.MaxStdoutBytes))
	}
	if !resp.Stopped && elapsed >= time.Duration(req.TimeoutMS)*time.Millisecond && resp.Signal != "" {
		resp.TimedOut = true
	}
	return resp, nil
}
