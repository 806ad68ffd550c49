package contract

import (
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract/seal"
)

// ResumeSchema names the resume document.
const ResumeSchema = "runx.resume.v1"

// ResumeDocument is what `runx resume` reads: agent work under answers,
// host-attested human decisions under approvals, or a close alone.
type ResumeDocument struct {
	Answers           map[string]*ResumeEntry `json:"answers,omitempty"`
	Approvals         map[string]*ResumeEntry `json:"approvals,omitempty"`
	StandingApprovals json.RawMessage         `json:"standing_approvals,omitempty"`
	Close             *ResumeClose            `json:"close,omitempty"`
}

// ResumeEntry binds one answer or decision to the request it answers.
type ResumeEntry struct {
	RequestDigest string          `json:"request_digest"`
	Value         json.RawMessage `json:"value,omitempty"`
	Approved      *bool           `json:"approved,omitempty"`
	Reason        *string         `json:"reason,omitempty"`
}

// ResumeClose ends a run nobody drives.
type ResumeClose struct {
	Outcome seal.Outcome `json:"outcome"`
}

// Resume lanes.
const (
	LaneAnswers   = "answers"
	LaneApprovals = "approvals"
)
