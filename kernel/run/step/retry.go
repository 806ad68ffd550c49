package step

import (
	"context"
	"encoding/json"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
)

// EventAttemptFailed records one failed attempt of a step with a retry: the
// attempt's number, its failure and, for a bounded retry, the time the next
// attempt may start. The run's record, not memory, counts the attempts, so a
// resume in another process continues the count.
const EventAttemptFailed = "step.attempt_failed"

type attemptRecord struct {
	Address string              `json:"address"`
	Attempt int                 `json:"attempt"`
	Error   *contract.ErrorBody `json:"error"`
	Until   int64               `json:"until,omitempty"` // ms since the epoch
}

// Execute is one dispatch of a unit: what it answered, or its failure and
// status, and whether that failure is final: one no retry changes (the
// money limit's refusals).
type Execute func() (out any, failure *contract.ErrorBody, status contract.StepStatus, final bool)

// ExecuteWithRetry runs a step's dispatch, and for a step with a retry runs
// it again after a failure, up to max_attempts in all. With no
// retry_after_seconds the next attempt starts at once; with one, the run
// pauses on a wait at <step>/retry that runx settles itself: the next
// resume at or after its until runs the step again. Any attempt the
// capability did not complete is retried (a read of a file not there yet is
// refused, and may pass later): the step has no effect, so running it again
// repeats nothing. The authority's own refusals (reach, the floor) are
// decided before dispatch and are never retried. A unit whose attempt
// nothing settles (Unconfirmed) is not retried either: it waits at its
// <step>/retry for a person.
func ExecuteWithRetry(ctx context.Context, run *Run, step *pkg.Step, local string, body *receipt.Body, execute Execute) (any, *contract.ErrorBody, contract.StepStatus, *Wait, error) {
	if step.Retry == nil {
		out, failure, status, _ := execute()
		return out, failure, status, unconfirmedWait(local, failure, status), nil
	}
	failed, until, err := failedAttempts(ctx, run, local)
	if err != nil {
		return nil, nil, "", nil, err
	}
	if until > 0 && run.Clock().UnixMilli() < until {
		return nil, nil, "", retryWait(run, step, local, failed, until), nil
	}
	for {
		out, failure, status, final := execute()
		attempt := failed + 1
		if failure == nil || status == contract.StepStopped || status == Unconfirmed || attempt >= step.Retry.MaxAttempts || final {
			if attempt > 1 {
				if body.Extra == nil {
					body.Extra = map[string]any{}
				}
				body.Extra["attempts"] = map[string]any{"made": attempt, "max": step.Retry.MaxAttempts}
			}
			return out, failure, status, unconfirmedWait(local, failure, status), nil
		}
		failed = attempt
		rec := attemptRecord{Address: local, Attempt: attempt, Error: failure}
		if d := step.Retry.RetryAfterSeconds; d > 0 {
			rec.Until = run.Clock().Add(time.Duration(d) * time.Second).UnixMilli()
		}
		if err := run.Journal.AppendEvent(durable(ctx), run.ID, "steps", EventAttemptFailed, rec); err != nil {
			return nil, nil, "", nil, err
		}
		if rec.Until > 0 {
			return nil, nil, "", retryWait(run, step, local, failed, rec.Until), nil
		}
		if ctx.Err() != nil {
			// Stopping admits no further attempt; the failure stands.
			return out, failure, status, nil, nil
		}
	}
}

// unconfirmedWait is the wait a unit whose claimed attempt nothing settles
// (status Unconfirmed) pauses on, at <address>/retry; its failure's Detail
// is the request's payload. Any other unit waits on nothing here.
func unconfirmedWait(local string, failure *contract.ErrorBody, status contract.StepStatus) *Wait {
	if status != Unconfirmed {
		return nil
	}
	payload, _ := failure.Detail.(map[string]any)
	return &Wait{Local: local + "/retry", Kind: contract.RequestApproval, Payload: payload}
}

// failedAttempts reads how many attempts of the unit at local failed, and
// the until the last bounded one set.
func failedAttempts(ctx context.Context, run *Run, local string) (int, int64, error) {
	events, err := run.Journal.Events(durable(ctx), run.ID, 0)
	if err != nil {
		return 0, 0, err
	}
	n, until := 0, int64(0)
	for _, ev := range events {
		if ev.Type != EventAttemptFailed {
			continue
		}
		var r attemptRecord
		if json.Unmarshal(ev.Data, &r) == nil && r.Address == local {
			n, until = max(n, r.Attempt), r.Until
		}
	}
	return n, until, nil
}

// retryWait is the wait a bounded retry pauses on: runx's own, answered by
// nobody, settled by the first resume at or after until.
func retryWait(run *Run, step *pkg.Step, local string, failed int, until int64) *Wait {
	address := local + "/retry"
	return &Wait{Local: address, Kind: contract.RequestWait, Payload: map[string]any{
		"id": run.Tree.Address(address), "until": until, "attempt": failed + 1, "max_attempts": step.Retry.MaxAttempts,
	}}
}
