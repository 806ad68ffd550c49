package run

import (
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
)

// scriptPort is the run as kernel/run/script sees it (script.Run): a
// script step's record (script.Log) reads each settled request through it.
type scriptPort struct{ rc *runCtx }

// Settled reads a settled request's journal record as drive.go reads any
// step's (settledOf).
func (p scriptPort) Settled(rec *journal.Step) (contract.StepStatus, *contract.ErrorBody, *receipt.ChildRef, error) {
	s, err := settledOf(rec)
	if err != nil {
		return "", nil, nil, err
	}
	if s.receiptID != "" {
		return s.status, s.failure, &s.ref, nil
	}
	return s.status, s.failure, nil, nil
}
