package testserver

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// readyTimeout bounds a server's start, crash recovery included.
const readyTimeout = 60 * time.Second

// requireBinary finds a server binary. Under CI=true a missing one fails the
// test, because CI must run every store test; elsewhere it skips with how to
// install it.
func requireBinary(t testing.TB, found string, what, install string) string {
	t.Helper()
	if found != "" {
		return found
	}
	msg := fmt.Sprintf("%s is not installed; install it with: %s", what, install)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before the server binds; the servers' startup then fails loudly.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomSecret(t testing.TB) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// process is one run of a server, in its own process group so that a kill
// takes its children (PostgreSQL's backends) with it.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startProcess(cmd *exec.Cmd, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	// A test binary that dies without its cleanups (a panic, a timeout)
	// must not leave a server behind.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL to the leader, its process group and every descendant
// at once, as a host crash would, and waits until all are gone. Descendants
// are found through /proc because PostgreSQL's backends leave the
// postmaster's process group (they call setsid), and a backend that outlived
// its postmaster would finish its transaction in a way no crash allows.
func (p *process) kill() error {
	if p.exited() {
		return nil
	}
	pids := append(descendants(p.cmd.Process.Pid), p.cmd.Process.Pid)
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.After(10 * time.Second)
	select {
	case <-p.done:
	case <-deadline:
		return fmt.Errorf("process %d did not die after SIGKILL", p.cmd.Process.Pid)
	}
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil && !isZombie(pid) {
			select {
			case <-deadline:
				return fmt.Errorf("process %d did not die after SIGKILL", pid)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return nil
}

// descendants lists every process below pid, from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if parent, ok := parentOf(child); ok {
			children[parent] = append(children[parent], child)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		out = append(out, children[next]...)
		queue = append(queue, children[next]...)
	}
	return out
}

// parentOf reads the parent pid from /proc/<pid>/stat, whose second field
// (the command name, in parentheses) may itself hold spaces.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
	fields := strings.Fields(rest)
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

// stop asks the server to shut down with sig, then kills it after a grace.
func (p *process) stop(sig syscall.Signal) {
	if p.exited() {
		return
	}
	syscall.Kill(-p.cmd.Process.Pid, sig)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.kill()
	}
}

// server is what Redis and PostgreSQL share: a process that can be killed
// and started again on the same data.
type server struct {
	mu    sync.Mutex
	proc  *process
	start func() (*process, error)
	ready func() error
	log   string
	sig   syscall.Signal // graceful stop
}

func (s *server) launch(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.start()
	if err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	s.proc = p
	deadline := time.Now().Add(readyTimeout)
	for {
		err := s.ready()
		if err == nil {
			return
		}
		if p.exited() || time.Now().After(deadline) {
			p.kill()
			t.Fatalf("the server did not become ready: %v\n%s", err, tail(s.log))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill kills the server at once (SIGKILL to its process group), as a crash
// would. It is safe to call from any goroutine.
func (s *server) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return nil
	}
	return s.proc.kill()
}

// Restart starts the server again on the same data directory and port and
// waits until it is ready, crash recovery included. Call it from the test
// goroutine.
func (s *server) Restart(t testing.TB) {
	t.Helper()
	if err := s.Kill(); err != nil {
		t.Fatalf("killing the server before restart: %v", err)
	}
	s.launch(t)
}

func (s *server) shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		s.proc.stop(s.sig)
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
