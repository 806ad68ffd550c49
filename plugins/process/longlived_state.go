package process

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/runxhq/runx/sdk/atomicfile"
)

// A process's state is a directory under the project's runx state,
// <project>/processes/<dir>/, written only by the process's starter and its
// supervisor:
//
//	record.json     the start, written before the supervisor is spawned
//	lock            flocked by the supervisor for its whole life
//	confirmed.json  the supervisor's confirmation, under that lock
//	log/            the bounded log (longlived_log.go)
//	exit.json       how it ended, written before the lock is let go
//
// A record with no exit.json whose lock is free has no supervisor: it is
// settled as failed (never confirmed) or lost (its supervisor died).

const (
	processesDirName = "processes"
	recordFile       = "record.json"
	lockFile         = "lock"
	confirmedFile    = "confirmed.json"
	exitFile         = "exit.json"
	socketFile       = "ctl.sock"
)

// Kind is what a kept process was started as.
type Kind string

// Kinds of process, listed once: the output schemas' kind enum and const
// are held to them (TestSchemaKindsAreTheKinds).
const (
	// KindProcess is started by process.start, kept past the call that
	// started it and fed input by process.write.
	KindProcess Kind = "process"
	// KindCommand is a command.execute call, followed as a process while
	// it runs (longlived_follow.go).
	KindCommand Kind = "command"
)

// State is where a kept process stands.
type State string

// States a process is in.
const (
	StateStarting State = "starting"
	StateRunning  State = "running"
	StateExited   State = "exited"
	StateStopped  State = "stopped"
	StateTimedOut State = "timed_out"
	StateFailed   State = "failed"
	StateLost     State = "lost"
)

// TTY is the pseudo-terminal a process runs in.
type TTY struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
}

// record is a process's start, as its starter wrote it.
type record struct {
	ProcessID   string            `json:"process_id"`
	Kind        Kind              `json:"kind"`
	CallID      string            `json:"call_id"`
	RunID       string            `json:"run_id,omitempty"`
	Actor       string            `json:"actor"`
	Argv        []string          `json:"argv"`
	Path        string            `json:"path"`
	Cwd         string            `json:"cwd"`
	Dir         string            `json:"dir"`
	Env         map[string]string `json:"env,omitempty"`
	TTY         *TTY              `json:"tty,omitempty"`
	MaxSeconds  int64             `json:"max_seconds"`
	LogMaxBytes int64             `json:"log_max_bytes"`
	RequestHash string            `json:"request_digest"`
	CreatedAt   time.Time         `json:"created_at"`
}

// confirmation is what a supervisor writes once its child runs.
type confirmation struct {
	SupervisorPID int       `json:"supervisor_pid"`
	PID           int       `json:"pid"`
	PGID          int       `json:"pgid"`
	StartedAt     time.Time `json:"started_at"`
}

// exitRecord is how a process ended.
type exitRecord struct {
	State    State     `json:"state"`
	ExitCode *int      `json:"exit_code,omitempty"`
	Signal   string    `json:"signal,omitempty"`
	Message  string    `json:"message,omitempty"`
	EndedAt  time.Time `json:"ended_at"`
}

var startIDPattern = regexp.MustCompile(`^proc_[0-9a-z]{26}$`)

var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// startID is the process a process.start call names: the same call always
// names the same process.
func startID(callID string) string {
	sum := sha256.Sum256([]byte("runx.process.start\x00" + callID))
	return "proc_" + strings.ToLower(idEncoding.EncodeToString(sum[:]))[:26]
}

// processDir is where a process id's state lives. A start's id is its own
// name; any other id (a command's <run>#<step>@<attempt>) is hashed, since
// it may hold any character.
func processDir(project, id string) string {
	name := id
	if !startIDPattern.MatchString(id) {
		sum := sha256.Sum256([]byte(id))
		name = "cmd_" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(project, processesDirName, name)
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// writeJSONAtomic writes v to path by rename, so a reader sees all of it or
// none. With exclusive, an existing path is an os.ErrExist.
func writeJSONAtomic(path string, v any, exclusive bool) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if exclusive {
		return atomicfile.Create(path, raw, 0o600)
	}
	return atomicfile.Write(path, raw, 0o600)
}

// openLock opens a process's lock file.
func openLock(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
}

// view is everything known about one process, settled.
type view struct {
	dir       string
	rec       record
	confirmed *confirmation
	exit      *exitRecord
}

func (v *view) state() State {
	switch {
	case v.exit != nil:
		return v.exit.State
	case v.confirmed != nil:
		return StateRunning
	}
	return StateStarting
}

func (v *view) running() bool { return v.exit == nil }

// loadView reads a process's state and settles a start no live supervisor
// holds. A missing process is os.ErrNotExist.
func loadView(dir string, now func() time.Time) (*view, error) {
	v := &view{dir: dir}
	if err := readJSON(filepath.Join(dir, recordFile), &v.rec); err != nil {
		return nil, err
	}
	if err := v.reload(); err != nil {
		return nil, err
	}
	if v.exit == nil {
		if err := v.settle(now); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func (v *view) reload() error {
	var c confirmation
	if err := readJSON(filepath.Join(v.dir, confirmedFile), &c); err == nil {
		v.confirmed = &c
	} else if !os.IsNotExist(err) {
		return err
	}
	var x exitRecord
	if err := readJSON(filepath.Join(v.dir, exitFile), &x); err == nil {
		v.exit = &x
	} else if !os.IsNotExist(err) {
		return err
	}
	return nil
}

// settle records how a process ended when nothing holds its lock and it
// has no exit: never confirmed, it failed to start; confirmed, its
// supervisor died without saying how the process ended, and what is left
// of its process group is killed, since nothing supervises it any more.
func (v *view) settle(now func() time.Time) error {
	f, err := openLock(v.dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil // a live supervisor (or starter) holds it
		}
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	// Under the lock nothing else writes; read again what a supervisor may
	// have written just before letting it go.
	if err := v.reload(); err != nil || v.exit != nil {
		return err
	}
	x := &exitRecord{State: StateFailed, Message: "no supervisor confirmed this start", EndedAt: now()}
	if v.confirmed != nil {
		x = &exitRecord{State: StateLost, Message: "the supervisor ended without recording how the process exited", EndedAt: now()}
		if v.confirmed.PGID > 0 && syscall.Kill(-v.confirmed.PGID, 0) == nil {
			_ = syscall.Kill(-v.confirmed.PGID, syscall.SIGKILL)
		}
	}
	if err := writeJSONAtomic(filepath.Join(v.dir, exitFile), x, true); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return v.reload()
}

// listViews loads every process of the project, oldest first.
func listViews(project string, now func() time.Time) ([]*view, error) {
	root := filepath.Join(project, processesDirName)
	entries, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []*view
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		v, err := loadView(filepath.Join(root, e.Name()), now)
		if err != nil {
			if os.IsNotExist(err) {
				continue // a directory whose record is not written yet
			}
			return nil, fmt.Errorf("process %s: %w", e.Name(), err)
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].rec.CreatedAt.Equal(out[j].rec.CreatedAt) {
			return out[i].rec.CreatedAt.Before(out[j].rec.CreatedAt)
		}
		return out[i].rec.ProcessID < out[j].rec.ProcessID
	})
	return out, nil
}
