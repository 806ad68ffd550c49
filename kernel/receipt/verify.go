package receipt

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Verify checks the tree under rootID, reading each receipt from store as the
// walk reaches it. A receipt is good when its canonical body re-hashes to its
// id, its signature verifies, its parent's commitment matches its whole
// canonical bytes, it is committed once, and it lies within limits. A good
// tree whose signers are all in keys is verified; one with a signer outside
// keys is unverified; anything else is invalid.
//
// The walk is depth first and holds only the receipts on the current path
// (their child lists) and the set of ids already seen, so memory is bounded
// by the depth and the tree bound, never by loading the tree. Signatures and
// canonical form are checked concurrently behind the walk; the report is the
// same as a sequential check's.
func Verify(ctx context.Context, store *Store, rootID string, keys KeySet, limits Limits) Report {
	limits = limits.normalized()
	problems := &problemSet{max: limits.MaxProblems}
	w := &walker{
		ctx:      ctx,
		store:    store,
		keys:     keys,
		limits:   limits,
		seen:     make(map[[32]byte]struct{}),
		trust:    make(map[string]bool),
		problems: problems,
		checks:   startCheckPool(problems),
	}
	w.visit(rootID, 0, "", "")
	w.checks.wait()

	rep := Report{ReceiptID: rootID, Receipts: w.receipts, Depth: w.depth, SkippedKeys: keys.Skipped()}
	problems.finish(&rep)
	return rep
}

type walker struct {
	ctx      context.Context
	store    *Store
	keys     KeySet
	limits   Limits
	problems *problemSet
	checks   *checkPool

	// seen holds the raw sha256 of every id visited: 32 bytes per receipt
	// rather than a 71-byte string.
	seen map[[32]byte]struct{}
	// trust caches, by base64 public key, whether keys trusts it; a key
	// absent from keys is reported once, naming the first receipt it signed,
	// rather than once per receipt.
	trust map[string]bool

	seq      int // visits so far; orders problems
	receipts int // reached, counted against the bound
	pending  int // committed by a receipt reached, not yet visited
	depth    int
	stopped  bool
}

// visit checks the receipt id, committed by parent with commitment (both
// empty for the root), at depth levels below the root, then its children.
// Recursion depth is bounded by limits.MaxDepth.
func (w *walker) visit(id string, depth int, commitment, parent string) {
	if w.stopped {
		return
	}
	seq := w.seq
	w.seq++
	add := func(invalid bool, code errcode.Code, msg string) {
		w.problems.add(seq, stageWalk, invalid, id, code, msg)
	}

	if err := w.ctx.Err(); err != nil {
		add(false, errcode.VerifyCancelled, fmt.Sprintf("verification stopped before this receipt: %v", err))
		w.stopped = true
		return
	}
	key, ok := idKey(id)
	if !ok {
		add(true, errcode.ReceiptIDInvalid, fmt.Sprintf("%q is not a receipt id (sha256:<64 lowercase hex>)%s", id, by(parent)))
		return
	}
	if _, dup := w.seen[key]; dup {
		add(true, errcode.ReceiptCommittedTwice, fmt.Sprintf("receipt is committed more than once in this tree%s; each receipt must be committed by exactly one parent", by(parent)))
		return
	}
	if depth > w.limits.MaxDepth {
		add(true, errcode.ReceiptTreeTooDeep, fmt.Sprintf("receipt is %d levels below the root; a tree may hold at most %d", depth, w.limits.MaxDepth))
		return
	}
	w.seen[key] = struct{}{}
	w.receipts++
	w.depth = max(w.depth, depth)

	children := w.check(seq, id, commitment, parent)
	// Every child committed is one more receipt in the tree, so a list
	// that does not fit in what is left of the bound is refused before any
	// of it is walked. Reserving the children this way also bounds the
	// child lists held on the path to MaxReceipts entries in all.
	if w.receipts+w.pending+len(children) > w.limits.MaxReceipts {
		add(true, errcode.ReceiptTreeTooLarge, fmt.Sprintf(
			"receipt commits %d children, which would take the tree past %d receipts (%d reached, %d more committed)",
			len(children), w.limits.MaxReceipts, w.receipts, w.pending))
		w.stopped = true
		return
	}
	w.pending += len(children)
	for _, c := range children {
		w.pending--
		w.visit(c.ReceiptID, depth+1, c.SignedDigest, id)
	}
}

// check verifies one receipt on its own and returns the children it commits.
// Everything it read is garbage once it returns, except the body a pending
// signature check holds; only the child list stays on the path.
func (w *walker) check(seq int, id, commitment, parent string) []ChildRef {
	add := func(stage int, code errcode.Code, msg string) { w.problems.add(seq, stage, true, id, code, msg) }

	raw, err := w.store.readRaw(id)
	switch {
	case errors.Is(err, ErrNotFound):
		add(stageWalk, errcode.ReceiptMissing, fmt.Sprintf("receipt is not in the store%s", by(parent)))
		return nil
	case errors.Is(err, ErrFileUnsafe):
		add(stageWalk, errcode.ReceiptFileUnsafe, err.Error())
		return nil
	case err != nil:
		add(stageWalk, errcode.ReceiptUnreadable, err.Error())
		return nil
	}
	c, committed, ok := w.canonical(raw, commitment, parent, add)
	if !ok {
		return nil
	}
	r, body, err := decodeStored(c)
	if err != nil {
		if committed {
			// The pool will not see these bytes; say whether the parent
			// committed to non-canonical bytes before saying they do not
			// decode.
			if code, msg, bad := committedNotCanonical(c, parent); bad {
				add(stageCommitment, code, msg)
			}
		}
		add(stageWalk, errcode.ReceiptMalformed, problemMessage(err))
		return nil
	}
	if r.ID != id {
		add(stageDigest, errcode.ReceiptDigestMismatch, fmt.Sprintf("the stored file for this id holds a receipt that names itself %s", r.ID))
	}
	if got := canon.DigestBytes(body); got != id {
		add(stageDigest, errcode.ReceiptDigestMismatch, fmt.Sprintf("body digests to %s, not to the receipt id", got))
	}
	job := checkJob{seq: seq, id: id, parent: parent, body: body, sig: r.Signature}
	if committed {
		job.committed = c
	}
	w.checks.check(job)
	w.checkTrust(seq, id, r.Signature)
	if err := validateFields(&r.Body); err != nil {
		add(stageBody, errcode.ReceiptBodyInvalid, problemMessage(err))
	}
	return r.Body.Children
}

// canonical returns the bytes to decode and checks the parent's commitment
// to them. Stored bytes that digest to the commitment are exactly the bytes
// the parent committed, so they are decoded as they are and committed is
// true: the check pool confirms they are canonical off the walk. Otherwise
// (the root, or a file reformatted or altered since) the walk canonicalises
// them itself and compares.
func (w *walker) canonical(raw []byte, commitment, parent string, add func(int, errcode.Code, string)) (c []byte, committed, ok bool) {
	if commitment != "" && canon.DigestBytes(raw) == commitment {
		return raw, true, true
	}
	c, err := canon.CanonicalJSON(raw)
	if err != nil {
		add(stageWalk, errcode.ReceiptMalformed, fmt.Sprintf("stored receipt is not json: %v", err))
		return nil, false, false
	}
	if commitment != "" {
		if got := canon.DigestBytes(c); got != commitment {
			add(stageCommitment, errcode.ChildCommitmentMismatch, fmt.Sprintf("parent %s commits signed digest %s, but the stored receipt digests to %s", parent, commitment, got))
		}
	}
	return c, false, true
}

// checkTrust reports a signer outside the key set once per key. Whether the
// signature itself holds is the pool's finding; a forged signature makes the
// tree invalid whatever this says.
func (w *walker) checkTrust(seq int, id string, sig Signature) {
	if _, known := w.trust[sig.PublicKey]; !known {
		pub, err := strictBase64.DecodeString(sig.PublicKey)
		trusted := err == nil && len(pub) == ed25519.PublicKeySize && w.keys.Trusts(pub)
		w.trust[sig.PublicKey] = trusted
		if !trusted && err == nil && len(pub) == ed25519.PublicKeySize {
			w.problems.add(seq, stageTrust, false, id, errcode.SignatureUntrusted, fmt.Sprintf(
				"signed by key %s, which this verifier does not trust (other receipts signed by it are not listed); "+
					"to trust it, put its public key %s in a .pub file under the runx home's keys/trusted/", KeyID(pub), sig.PublicKey))
		}
	}
}

func idKey(id string) ([32]byte, bool) {
	var k [32]byte
	h, ok := canon.DigestHex(id)
	if !ok {
		return k, false
	}
	if _, err := hex.Decode(k[:], []byte(h)); err != nil {
		return k, false
	}
	return k, true
}

func by(parent string) string {
	if parent == "" {
		return ""
	}
	return " (committed by " + parent + ")"
}

// problemMessage drops the code prefix of an *Error, since a Problem carries
// its own code.
func problemMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		if e.Err != nil {
			return e.Message + ": " + e.Err.Error()
		}
		return e.Message
	}
	return err.Error()
}
