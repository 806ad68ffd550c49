package process

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/runxhq/runx/sdk/errcode"
)

// A supervisor answers one request per connection on a Unix socket in its
// process's state directory (mode 0700, so only this user reaches it):
// write to the child's stdin or terminal, resize the terminal, or stop.

type controlRequest struct {
	Op     string `json:"op"`
	CallID string `json:"call_id,omitempty"`
	Input  string `json:"input,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	Cols   int    `json:"cols,omitempty"`
}

type controlReply struct {
	OK             bool         `json:"ok"`
	Bytes          int          `json:"bytes,omitempty"`
	AlreadyApplied bool         `json:"already_applied,omitempty"`
	Code           errcode.Code `json:"code,omitempty"`
	Message        string       `json:"message,omitempty"`
}

// writeTimeout bounds a write to a child that reads nothing.
const writeTimeout = 10 * time.Second

// sunPathMax is what a Unix socket's path may hold, less its terminator.
const sunPathMax = 100

// shortSocketPath calls fn with a path to dir's socket short enough for a
// sockaddr: the path itself, or one through /proc/self/fd when the state
// directory lies deep (Linux).
func shortSocketPath(dir string, fn func(path string) error) error {
	full := filepath.Join(dir, socketFile)
	if len(full) < sunPathMax {
		return fn(full)
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return fn(fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), socketFile))
}

func listenControl(dir string) (net.Listener, error) {
	var ln net.Listener
	err := shortSocketPath(dir, func(path string) error {
		_ = os.Remove(filepath.Join(dir, socketFile))
		var err error
		ln, err = net.Listen("unix", path)
		return err
	})
	if ul, ok := ln.(*net.UnixListener); ok {
		// The socket is removed by path when it closes; through /proc the
		// name would be gone, so remove the real one ourselves.
		ul.SetUnlinkOnClose(false)
	}
	return ln, err
}

// control sends one request to dir's supervisor.
func control(dir string, req controlRequest, timeout time.Duration) (*controlReply, error) {
	var conn net.Conn
	err := shortSocketPath(dir, func(path string) error {
		var err error
		conn, err = net.DialTimeout("unix", path, timeout)
		return err
	})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if err := json.NewEncoder(conn).Encode(&req); err != nil {
		return nil, err
	}
	var rep controlReply
	if err := json.NewDecoder(conn).Decode(&rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

func (s *supervisor) serve(ln net.Listener) {
	defer os.Remove(filepath.Join(s.dir, socketFile))
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go s.answer(conn)
	}
}

func (s *supervisor) answer(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(writeTimeout + stopGrace + 5*time.Second))
	var req controlRequest
	if err := json.NewDecoder(conn).Decode(&req); err != nil {
		return
	}
	_ = json.NewEncoder(conn).Encode(s.handle(&req))
}

func (s *supervisor) handle(req *controlRequest) *controlReply {
	switch req.Op {
	case "write":
		return s.writeInput(req)
	case "resize":
		if s.term == nil {
			return &controlReply{Code: errcode.ProcessNotATerminal, Message: "the process runs without a terminal, so it has no size"}
		}
		if err := pty.Setsize(s.term, &pty.Winsize{Rows: uint16(req.Rows), Cols: uint16(req.Cols)}); err != nil {
			return &controlReply{Code: errcode.ProcessResizeFailed, Message: err.Error()}
		}
		return &controlReply{OK: true}
	case "stop":
		s.stop(StateStopped)
		select {
		case <-s.done:
		case <-time.After(stopGrace + 2*time.Second):
		}
		return &controlReply{OK: true}
	}
	return &controlReply{Code: errcode.ProcessControlInvalid, Message: fmt.Sprintf("no control operation %q", req.Op)}
}

// writeInput types input once per call: a call sent again is answered with
// what its first send applied.
func (s *supervisor) writeInput(req *controlRequest) *controlReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.applied[req.CallID]; ok && req.CallID != "" {
		return &controlReply{OK: true, Bytes: n, AlreadyApplied: true}
	}
	select {
	case <-s.done:
		return &controlReply{Code: errcode.ProcessNotRunning, Message: "the process has exited"}
	default:
	}
	_ = s.stdin.SetWriteDeadline(time.Now().Add(writeTimeout))
	n, err := s.stdin.WriteString(req.Input)
	s.applied[req.CallID] = n
	if err != nil {
		code := errcode.ProcessWriteFailed
		if errors.Is(err, os.ErrDeadlineExceeded) {
			code = errcode.ProcessWriteBlocked
		} else if errors.Is(err, syscall.EPIPE) {
			code = errcode.ProcessNotRunning
		}
		return &controlReply{Code: code, Bytes: n, Message: fmt.Sprintf("%d of %d bytes were written: %v", n, len(req.Input), err)}
	}
	return &controlReply{OK: true, Bytes: n}
}
