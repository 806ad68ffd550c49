package receipt

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/runxhq/runx/kernel/contract/canon"
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
// by the depth and the tree bound, never by loading the tree.
func Verify(ctx context.Context, store *Store, rootID string, keys KeySet, limits Limits) Report {
	w := &walker{
		ctx:       ctx,
		store:     store,
		keys:      keys,
		limits:    limits.normalized(),
		seen:      make(map[[32]byte]struct{}),
		untrusted: make(map[string]struct{}),
		report:    Report{ReceiptID: rootID},
	}
	w.visit(rootID, 0, "", "")
	w.report.Status = w.status()
	return w.report
}

type walker struct {
	ctx    context.Context
	store  *Store
	keys   KeySet
	limits Limits

	// seen holds the raw sha256 of every id visited: 32 bytes per receipt
	// rather than a 71-byte string.
	seen map[[32]byte]struct{}
	// untrusted holds the key ids already reported, so a tree signed by one
	// unknown key yields one problem, not one per receipt.
	untrusted map[string]struct{}

	report      Report
	invalid     bool
	unconfirmed bool // an untrusted signer, or a walk that did not finish
	stopped     bool
}

// visit checks the receipt id, committed by parent with commitment (both
// empty for the root), at depth levels below the root, then its children.
// Recursion depth is bounded by limits.MaxDepth.
func (w *walker) visit(id string, depth int, commitment, parent string) {
	if w.stopped {
		return
	}
	if err := w.ctx.Err(); err != nil {
		w.add(false, id, CodeVerifyCancelled, fmt.Sprintf("verification stopped before this receipt: %v", err))
		w.stopped = true
		return
	}
	key, ok := idKey(id)
	if !ok {
		w.add(true, id, CodeIDInvalid, fmt.Sprintf("%q is not a receipt id (sha256:<64 lowercase hex>)%s", id, by(parent)))
		return
	}
	if _, dup := w.seen[key]; dup {
		w.add(true, id, CodeCommittedTwice, fmt.Sprintf("receipt is committed more than once in this tree%s; each receipt must be committed by exactly one parent", by(parent)))
		return
	}
	if depth > w.limits.MaxDepth {
		w.add(true, id, CodeTreeTooDeep, fmt.Sprintf("receipt is %d levels below the root; a tree may hold at most %d", depth, w.limits.MaxDepth))
		return
	}
	if w.report.Receipts >= w.limits.MaxReceipts {
		w.add(true, id, CodeTreeTooLarge, fmt.Sprintf("receipt would be number %d in this tree; a tree may hold at most %d receipts", w.report.Receipts+1, w.limits.MaxReceipts))
		w.stopped = true
		return
	}
	w.seen[key] = struct{}{}
	w.report.Receipts++
	w.report.Depth = max(w.report.Depth, depth)

	for _, c := range w.check(id, commitment, parent) {
		w.visit(c.ReceiptID, depth+1, c.SignedDigest, id)
	}
}

// check verifies one receipt on its own and returns the children it commits.
// Everything it read is garbage once it returns; only the child list stays on
// the path.
func (w *walker) check(id, commitment, parent string) []ChildRef {
	raw, err := w.store.readRaw(id)
	switch {
	case errors.Is(err, ErrNotFound):
		w.add(true, id, CodeMissing, fmt.Sprintf("receipt is not in the store%s", by(parent)))
		return nil
	case err != nil:
		w.add(true, id, CodeUnreadable, err.Error())
		return nil
	}
	c, err := canon.CanonicalJSON(raw)
	if err != nil {
		w.add(true, id, CodeMalformed, fmt.Sprintf("stored receipt is not json: %v", err))
		return nil
	}
	if commitment != "" {
		if got := canon.DigestBytes(c); got != commitment {
			w.add(true, id, CodeChildCommitment, fmt.Sprintf("parent %s commits signed digest %s, but the stored receipt digests to %s", parent, commitment, got))
		}
	}
	env, err := decodeEnvelope(c)
	if err != nil {
		w.add(true, id, CodeMalformed, problemMessage(err))
		return nil
	}
	if env.ID != id {
		w.add(true, id, CodeDigestMismatch, fmt.Sprintf("the stored file for this id holds a receipt that names itself %s", env.ID))
	}
	if got := canon.DigestBytes(env.Body); got != id {
		w.add(true, id, CodeDigestMismatch, fmt.Sprintf("body digests to %s, not to the receipt id", got))
	}
	w.checkSignature(id, env.Body, env.Signature)

	body, err := decodeBody(env.Body)
	if err != nil {
		w.add(true, id, CodeMalformed, problemMessage(err))
		return nil
	}
	if err := validateFields(&body); err != nil {
		w.add(true, id, CodeBodyInvalid, problemMessage(err))
	}
	return body.Children
}

func (w *walker) checkSignature(id string, body []byte, sig Signature) {
	pub, err := checkSignature(body, sig)
	if err != nil {
		w.add(true, id, CodeSignatureInvalid, err.Error())
		return
	}
	if w.keys.Trusts(pub) {
		return
	}
	if _, reported := w.untrusted[sig.KeyID]; reported {
		return
	}
	w.untrusted[sig.KeyID] = struct{}{}
	w.add(false, id, CodeSignatureUntrusted, fmt.Sprintf(
		"signed by key %s, which this verifier does not trust (other receipts signed by it are not listed); "+
			"to trust it, put its public key %s in a .pub file under the runx home's keys/trusted/", sig.KeyID, sig.PublicKey))
}

// add records a problem. Past the cap it is only counted, but it still
// decides the status.
func (w *walker) add(invalid bool, id, code, msg string) {
	if invalid {
		w.invalid = true
	} else {
		w.unconfirmed = true
	}
	if len(w.report.Problems) >= w.limits.MaxProblems {
		w.report.ProblemsOmitted++
		return
	}
	w.report.Problems = append(w.report.Problems, Problem{ReceiptID: id, Code: code, Message: msg})
}

func (w *walker) status() string {
	switch {
	case w.invalid:
		return StatusInvalid
	case w.unconfirmed:
		return StatusUnverified
	default:
		return StatusVerified
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
