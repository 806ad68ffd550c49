package notary

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/errcode"
)

// StateDir is where a runx home keeps the last checkpoint it saw of each
// notary log.
func StateDir(home string) string { return filepath.Join(home, "notary") }

// State is the last checkpoint of each notary log a runx home saw. A
// checkpoint is accepted only when it is consistent with that one; the
// larger of the two is then remembered, so the view only moves forward.
type State struct{ dir string }

// OpenState is the state of the runx home at home.
func OpenState(home string) *State { return &State{dir: StateDir(home)} }

func (s *State) path(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return filepath.Join(s.dir, hex.EncodeToString(sum[:16])+".checkpoint")
}

// Last is the last checkpoint seen of pub's log; false when none was.
func (s *State) Last(pub ed25519.PublicKey) (Checkpoint, bool, error) {
	p := s.path(pub)
	raw, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Checkpoint{}, false, nil
	}
	if err != nil {
		return Checkpoint{}, false, contract.Errorf(errcode.NotaryStateInvalid, "cannot read %s: %v", p, err)
	}
	cp, err := OpenCheckpoint(string(raw), pub)
	if err != nil {
		return Checkpoint{}, false, contract.Errorf(errcode.NotaryStateInvalid, "%s is not a checkpoint of this notary runx wrote: %v", p, err)
	}
	return cp, true, nil
}

// ProveTree fetches a consistency proof from a tree of size old to one of
// size new of the same log: the notary's GET /v1/log/consistency.
type ProveTree func(ctx context.Context, old, new int64) (tlog.TreeProof, error)

// Consistency says how a checkpoint relates to the last one seen.
type Consistency string

// How a checkpoint relates to the one the home last saw.
const (
	// FirstSeen: the home had seen no checkpoint of this log; this one is
	// trusted from now on.
	FirstSeen Consistency = "first_seen"
	// SameTree: the same size and root as the last one seen.
	SameTree Consistency = "same_tree"
	// Extends: a larger tree of which the last one seen is a prefix.
	Extends Consistency = "extends"
	// Precedes: a smaller tree, a prefix of the last one seen.
	Precedes Consistency = "precedes"
)

// Check decides whether cp, already verified under pub, is consistent with
// the last checkpoint seen of its log, fetching a consistency proof with
// prove only when their sizes differ; a checkpoint that is not is
// notary_log_forked and the home keeps the one it had. A consistent
// checkpoint larger than the last one seen replaces it.
//
// The whole check holds the home's lock of that log's checkpoint, so two
// verifies at once see one another's view: neither can step the view back
// to a smaller checkpoint, nor accept one checked against a view the other
// has already moved past.
func (s *State) Check(ctx context.Context, pub ed25519.PublicKey, cp Checkpoint, prove ProveTree) (Consistency, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", contract.Errorf(errcode.NotaryStateInvalid, "cannot make %s: %v", s.dir, err)
	}
	lock := flock.New(s.path(pub) + ".lock")
	locked, err := lock.TryLockContext(ctx, lockRetry)
	if err != nil || !locked {
		return "", contract.Errorf(errcode.NotaryStateInvalid, "cannot lock %s: %v", lock.Path(), err)
	}
	defer lock.Unlock()
	return s.check(ctx, pub, cp, prove)
}

// lockRetry is how often a check waiting on another's lock tries again.
const lockRetry = 5 * time.Millisecond

func (s *State) check(ctx context.Context, pub ed25519.PublicKey, cp Checkpoint, prove ProveTree) (Consistency, error) {
	last, ok, err := s.Last(pub)
	if err != nil {
		return "", err
	}
	if !ok {
		return FirstSeen, s.remember(pub, cp)
	}
	forked := func(detail string) error {
		return contract.Errorf(errcode.NotaryLogForked,
			"the checkpoint of %d entries is not consistent with the one of %d entries this runx home saw (%s): the log %s was rewritten or forked",
			cp.Size, last.Size, detail, cp.Origin)
	}
	if cp.Size == last.Size {
		if cp.Root != last.Root {
			return "", forked("the same size with another root hash")
		}
		return SameTree, nil
	}
	older, newer, rel := last, cp, Extends
	if cp.Size < last.Size {
		older, newer, rel = cp, last, Precedes
	}
	if prove == nil {
		return "", contract.Errorf(errcode.NotaryUnavailable,
			"the checkpoint holds %d entries and this runx home last saw %d: their consistency needs a proof from the notary, which this check cannot reach", cp.Size, last.Size)
	}
	proof, err := prove(ctx, older.Size, newer.Size)
	if err != nil {
		return "", err
	}
	if err := tlog.CheckTree(proof, newer.Size, newer.Root, older.Size, older.Root); err != nil {
		return "", forked("no consistency proof between them holds")
	}
	if rel == Extends {
		return rel, s.remember(pub, cp)
	}
	return rel, nil
}

func (s *State) remember(pub ed25519.PublicKey, cp Checkpoint) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(s.path(pub), []byte(cp.Signed), 0o600)
}
