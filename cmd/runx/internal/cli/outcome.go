package cli

import (
	"context"
	"errors"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/sdk/errcode"
)

// ExitError carries a command's exit code through cobra.
type ExitError struct{ Code ExitCode }

func (e *ExitError) Error() string { return "exit" }

// Exit turns an exit code into what a cobra RunE returns.
func Exit(code ExitCode) error {
	if code == ExitOK {
		return nil
	}
	return &ExitError{Code: code}
}

// Signal causes recorded on a command's context by the root.
var (
	ErrInterrupted = errors.New(string(errcode.Interrupted))
	ErrTerminated  = errors.New("terminated")
)

// ExitFor maps a run's envelope to the exit code: 0 for completed or paused,
// 130/143 when a signal stopped it, 1 for any other seal.
func ExitFor(ctx context.Context, env *contract.SkillRun) ExitCode {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, ErrTerminated):
		return ExitTerminated
	case errors.Is(cause, ErrInterrupted):
		return ExitInterrupted
	}
	if env.Status != contract.StatusSealed || env.Outcome == seal.OutcomeCompleted {
		return ExitOK
	}
	return ExitFailed
}

// SkillMethod names a run's skill as runx skill takes it: <skill>#<method>,
// or the skill alone when the record names no method.
func SkillMethod(skill, method string) string {
	if method == "" {
		return skill
	}
	return skill + "#" + method
}
