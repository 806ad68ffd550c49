package wslock

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// Mode is how a hold shares the workspace.
type Mode int

// Modes: readers share; a writer holds the workspace alone.
const (
	Shared Mode = iota + 1
	Exclusive
)

func (m Mode) String() string {
	switch m {
	case Shared:
		return "shared"
	case Exclusive:
		return "exclusive"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// EnvToken is the variable a process run under an exclusive hold receives
// its token in.
const EnvToken = "RUNX_WORKSPACE_LOCK_TOKEN"

// Files in the project directory.
const (
	lockFile      = "workspace.lock"
	turnstileFile = "workspace.lock.turnstile"
	holdersDir    = "workspace.lock.holders"
)

// Waiting polls with a delay that doubles from pollMin to pollMax: a lock
// released quickly is taken within a millisecond or two, and a long wait
// costs a few wake-ups a second, not a spinning core.
const (
	pollMin = time.Millisecond
	pollMax = 25 * time.Millisecond
)

// ErrMode is returned for a mode that is neither Shared nor Exclusive.
var ErrMode = errors.New("wslock: mode must be Shared or Exclusive")

// Hold is a held workspace lock. Release it when the step or call is done.
type Hold struct {
	mode   Mode
	token  string
	joined bool
	lock   *flock.Flock
	// holder is the exclusive hold's marker, locked for the hold's life, by
	// which a joiner tells a live token from one a crashed holder left.
	holder *flock.Flock
	once   sync.Once
	err    error
}

// Mode is the mode asked for.
func (h *Hold) Mode() Mode { return h.mode }

// Token is the exclusive hold's token, to hand to a process run under it
// as EnvToken; a joined exclusive hold passes its holder's token on, so
// joining nests. A shared hold has none.
func (h *Hold) Token() string { return h.token }

// Joined reports whether the hold joined another's rather than taking the
// lock: releasing it releases nothing.
func (h *Hold) Joined() bool { return h.joined }

// Release gives the lock up. Calling it again does nothing.
func (h *Hold) Release() error {
	h.once.Do(func() {
		if h.holder != nil {
			// Remove the marker before unlocking it, so no joiner can find
			// it unlocked and mistake this hold for a crashed one.
			_ = os.Remove(h.holder.Path())
			_ = h.holder.Unlock()
		}
		if h.lock != nil {
			h.err = h.lock.Unlock()
		}
	})
	return h.err
}

// Acquire takes the workspace lock of projectDir in mode, waiting while
// others hold it until ctx ends.
func Acquire(ctx context.Context, projectDir string, mode Mode) (*Hold, error) {
	return AcquireJoining(ctx, projectDir, mode, "")
}

// AcquireJoining is Acquire for a process that may run under another's
// exclusive hold: when token is the token of the exclusive hold in force,
// it returns a joined hold at once instead of waiting on its own parent.
// An empty, unknown or stale token joins nothing, and the lock is taken as
// Acquire takes it.
func AcquireJoining(ctx context.Context, projectDir string, mode Mode, token string) (*Hold, error) {
	if mode != Shared && mode != Exclusive {
		return nil, ErrMode
	}
	if token != "" && holderAlive(projectDir, token) {
		h := &Hold{mode: mode, joined: true}
		if mode == Exclusive {
			h.token = token
		}
		return h, nil
	}
	if err := os.MkdirAll(projectDir, 0o755); err != nil {
		return nil, fmt.Errorf("wslock: %w", err)
	}
	if mode == Shared {
		return acquireShared(ctx, projectDir)
	}
	return acquireExclusive(ctx, projectDir)
}

// acquireShared passes the turnstile (waiting while a writer is queued),
// then shares the lock.
func acquireShared(ctx context.Context, projectDir string) (*Hold, error) {
	turnstile := flock.New(filepath.Join(projectDir, turnstileFile))
	if err := wait(ctx, turnstile.TryRLock); err != nil {
		return nil, waitError(projectDir, Shared, err)
	}
	defer turnstile.Unlock()
	lock := flock.New(filepath.Join(projectDir, lockFile))
	if err := wait(ctx, lock.TryRLock); err != nil {
		return nil, waitError(projectDir, Shared, err)
	}
	return &Hold{mode: Shared, lock: lock}, nil
}

// acquireExclusive closes the turnstile behind it, so readers arriving now
// wait, then takes the lock once the readers already in have left.
func acquireExclusive(ctx context.Context, projectDir string) (*Hold, error) {
	turnstile := flock.New(filepath.Join(projectDir, turnstileFile))
	if err := wait(ctx, turnstile.TryLock); err != nil {
		return nil, waitError(projectDir, Exclusive, err)
	}
	lock := flock.New(filepath.Join(projectDir, lockFile))
	err := wait(ctx, lock.TryLock)
	_ = turnstile.Unlock()
	if err != nil {
		return nil, waitError(projectDir, Exclusive, err)
	}
	h := &Hold{mode: Exclusive, lock: lock}
	if err := h.mark(projectDir); err != nil {
		_ = lock.Unlock()
		return nil, fmt.Errorf("wslock: recording the hold's token: %w", err)
	}
	return h, nil
}

// mark makes the hold's token and locks its marker for the hold's life.
func (h *Hold) mark(projectDir string) error {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	token := hex.EncodeToString(b[:])
	if err := os.MkdirAll(filepath.Join(projectDir, holdersDir), 0o700); err != nil {
		return err
	}
	holder := flock.New(holderPath(projectDir, token))
	ok, err := holder.TryLock()
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("a fresh token's marker is already locked")
	}
	h.token, h.holder = token, holder
	return nil
}

// holderPath names a token's marker by its digest, so listing the project
// directory does not hand out the token itself.
func holderPath(projectDir, token string) string {
	sum := sha256.Sum256([]byte(token))
	return filepath.Join(projectDir, holdersDir, hex.EncodeToString(sum[:16]))
}

// holderAlive reports whether token belongs to an exclusive hold in force:
// its marker exists and its holder still has it locked. A marker nobody
// has locked was left by a holder that died; it is removed.
func holderAlive(projectDir, token string) bool {
	path := holderPath(projectDir, token)
	if _, err := os.Stat(path); err != nil {
		return false
	}
	probe := flock.New(path)
	free, err := probe.TryRLock()
	if err != nil {
		return false
	}
	if !free {
		return true
	}
	_ = os.Remove(path)
	_ = probe.Unlock()
	return false
}

// wait polls try until it succeeds, fails or ctx ends.
func wait(ctx context.Context, try func() (bool, error)) error {
	delay := pollMin
	for {
		ok, err := try()
		if err != nil || ok {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, pollMax)
	}
}

func waitError(projectDir string, mode Mode, err error) error {
	return fmt.Errorf("wslock: taking the workspace lock %s %s: %w", filepath.Join(projectDir, lockFile), mode, err)
}
