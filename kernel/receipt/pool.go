package receipt

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// checkPool runs the checks of a receipt that the walk does not need to go
// on: the signature, and whether a child's committed bytes are canonical.
// They are the two largest costs of a receipt (an ed25519 verification and a
// pass over every byte) and need nothing from the rest of the tree, so they
// run on the other cores while the walk reads ahead.
type checkPool struct {
	jobs     chan checkJob
	wg       sync.WaitGroup
	problems *problemSet
}

type checkJob struct {
	seq int
	id  string
	// committed, when set, is a child's stored bytes, which digest to the
	// parent's commitment and still have to be shown canonical.
	committed []byte
	parent    string
	body      []byte
	sig       Signature
}

// checkQueue bounds the jobs waiting, and so the receipt bytes held for them,
// whatever the tree's shape.
const checkQueue = 64

func startCheckPool(problems *problemSet) *checkPool {
	p := &checkPool{jobs: make(chan checkJob, checkQueue), problems: problems}
	for range max(1, runtime.GOMAXPROCS(0)) {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

func (p *checkPool) work() {
	defer p.wg.Done()
	for j := range p.jobs {
		if j.committed != nil {
			p.checkCanonical(j)
		}
		if _, err := checkSignature(j.body, j.sig); err != nil {
			p.problems.add(j.seq, stageSignature, true, j.id, errcode.SignatureInvalid, err.Error())
		}
	}
}

func (p *checkPool) checkCanonical(j checkJob) {
	if code, msg, bad := committedNotCanonical(j.committed, j.parent); bad {
		p.problems.add(j.seq, stageCommitment, true, j.id, code, msg)
	}
}

// committedNotCanonical finishes the commitment check the walk started. The
// stored bytes digest to the commitment; the commitment is over canonical
// bytes, so they must also be their own canonical form. Bytes that are not
// (a duplicate key, a reordered member) would let two JSON readers disagree
// about what was signed.
func committedNotCanonical(committed []byte, parent string) (code errcode.Code, msg string, bad bool) {
	if canon.IsCanonical(committed) {
		return "", "", false
	}
	// Only a failure pays for canonicalising, to say what is wrong.
	c, err := canon.CanonicalJSON(committed)
	if err != nil {
		return errcode.ReceiptMalformed, fmt.Sprintf("stored receipt is not json: %v", err), true
	}
	if !bytes.Equal(c, committed) {
		return errcode.ChildCommitmentMismatch, fmt.Sprintf("parent %s commits signed digest %s, but the stored receipt digests to %s once canonical",
			parent, canon.DigestBytes(committed), canon.DigestBytes(c)), true
	}
	return "", "", false
}

func (p *checkPool) check(j checkJob) { p.jobs <- j }

// wait returns once every submitted job has been checked.
func (p *checkPool) wait() {
	close(p.jobs)
	p.wg.Wait()
}
