package driver

import (
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// Evidence keys drivers use in failures.
const (
	EvidenceProvider    = "provider"
	EvidenceStage       = "stage"        // what the driver was doing: connect, append, read, readback, schema
	EvidenceCommitState = "commit_state" // one of the Commit* values below
	EvidenceCause       = "cause"        // the provider's error, scrubbed and truncated
)

// What a failed append knows about its commit.
const (
	// CommitNotSent: the write never left the driver (no connection, a closed
	// driver, a context done before dispatch).
	CommitNotSent = "not_sent"
	// CommitNotCommitted: the provider reported the transaction rolled back,
	// or a readback fenced against the in-flight write found no commit.
	CommitNotCommitted = "not_committed"
	// CommitUnknown: the write was sent and nothing could prove its outcome.
	CommitUnknown = "unknown"
)

const maxCauseBytes = 300

// Scrubber removes a driver's secrets from provider messages before they
// become evidence. Drivers keep their message text their own; the scrubber is
// the second line for the provider's text that evidence quotes.
type Scrubber struct {
	secrets []string
}

// NewScrubber scrubs each non-empty secret.
func NewScrubber(secrets ...string) Scrubber {
	var s Scrubber
	for _, v := range secrets {
		if v != "" {
			s.secrets = append(s.secrets, v)
		}
	}
	return s
}

// Scrub returns msg with every secret replaced and at most 300 bytes kept.
func (s Scrubber) Scrub(msg string) string {
	for _, secret := range s.secrets {
		msg = strings.ReplaceAll(msg, secret, "[redacted]")
	}
	if len(msg) > maxCauseBytes {
		msg = msg[:maxCauseBytes] + "…"
	}
	return msg
}

// Failure builds a provider failure for an operation. The code follows from
// the commit state: an append whose outcome is unknown is ambiguous_commit;
// anything provably uncommitted (and every read) is provider_unavailable.
func (s Scrubber) Failure(provider, stage, commitState string, cause error) *Error {
	code := errcode.ProviderUnavailable
	msg := "the " + provider + " store is unavailable (" + stage + "); nothing was committed: retry later with the same idempotency key"
	switch commitState {
	case CommitUnknown:
		code = errcode.AmbiguousCommit
		msg = "the " + provider + " store failed after the append was sent and its commit could not be proven either way; it is not reported committed: retry with the same idempotency key, which returns the committed result if it landed"
	case "":
		msg = "the " + provider + " store is unavailable (" + stage + "): retry later"
	}
	e := Errorf(code, "%s", msg).
		WithEvidence(EvidenceProvider, provider).
		WithEvidence(EvidenceStage, stage)
	if commitState != "" {
		e.WithEvidence(EvidenceCommitState, commitState)
	}
	if cause != nil {
		scrubbed := s.Scrub(cause.Error())
		e.WithEvidence(EvidenceCause, scrubbed)
		e.WithCause(scrubbedError{msg: scrubbed, err: cause})
	}
	return e
}

// scrubbedError keeps errors.Is/As working on the provider's error while its
// text is the scrubbed one.
type scrubbedError struct {
	msg string
	err error
}

func (e scrubbedError) Error() string { return e.msg }
func (e scrubbedError) Unwrap() error { return e.err }

// Closed is the failure of a call on a closed driver.
func Closed(provider string) *Error {
	return Errorf(errcode.ProviderUnavailable, "the %s store driver is closed", provider).
		WithEvidence(EvidenceProvider, provider).
		WithEvidence(EvidenceCommitState, CommitNotSent)
}
