package receipt

import (
	"sort"
	"sync"

	"github.com/runxhq/runx/sdk/errcode"
)

// Stages order a receipt's problems the way a sequential check would find
// them, so a report lists problems in the same order on every run even
// though signatures are checked concurrently.
const (
	stageWalk = iota
	stageCommitment
	stageDigest
	stageSignature
	stageTrust
	stageBody
)

// problemSet collects problems from the walk and the signature workers. It
// keeps at most max of them, the first in walk order, and counts the rest;
// its memory stays bounded however broken a tree is.
type problemSet struct {
	mu      sync.Mutex
	max     int
	items   []ordered
	omitted int
	// invalid and unconfirmed decide the status, including for problems
	// that were only counted.
	invalid     bool
	unconfirmed bool
}

type ordered struct {
	seq, stage int
	p          Problem
}

func (s *problemSet) add(seq, stage int, invalid bool, id string, code errcode.Code, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if invalid {
		s.invalid = true
	} else {
		s.unconfirmed = true
	}
	s.items = append(s.items, ordered{seq: seq, stage: stage, p: Problem{ReceiptID: id, Code: code, Message: msg}})
	if len(s.items) >= 2*s.max {
		s.trim()
	}
}

// trim sorts into walk order and keeps the first max. Problems of one
// receipt and stage come from one goroutine in order, so a stable sort keeps
// the result deterministic.
func (s *problemSet) trim() {
	sort.SliceStable(s.items, func(i, j int) bool {
		a, b := s.items[i], s.items[j]
		if a.seq != b.seq {
			return a.seq < b.seq
		}
		return a.stage < b.stage
	})
	if len(s.items) > s.max {
		s.omitted += len(s.items) - s.max
		s.items = s.items[:s.max]
	}
}

// finish fills the report's problems and status.
func (s *problemSet) finish(r *Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trim()
	for _, it := range s.items {
		r.Problems = append(r.Problems, it.p)
	}
	r.ProblemsOmitted = s.omitted
	switch {
	case s.invalid:
		r.Status = StatusInvalid
	case s.unconfirmed:
		r.Status = StatusUnverified
	default:
		r.Status = StatusVerified
	}
}
