package contract

import (
	"encoding/json"

	"github.com/runxhq/runx/sdk/artifactstore"
)

// SkillRunSchema names the envelope of a run.
const SkillRunSchema = "runx.skill_run.v1"

// Run statuses.
const (
	StatusSealed        = "sealed"
	StatusNeedsAgent    = "needs_agent"
	StatusNeedsApproval = "needs_approval"
	// StatusStopped is a run a driver's SIGTERM left where it stopped, for
	// its next driver.
	StatusStopped = "stopped"
)

// Outcomes of a sealed run.
const (
	OutcomeCompleted  = "completed"
	OutcomeFailed     = "failed"
	OutcomeRefused    = "refused"
	OutcomeBlocked    = "blocked"
	OutcomeDeclined   = "declined"
	OutcomeSuperseded = "superseded"
	OutcomeKilled     = "killed"
)

// Seal reasons: a closed vocabulary, set where the outcome alone does not say
// why the run sealed as it did.
const (
	SealStepFailed            = "step_failed"
	SealStepRefused           = "step_refused"
	SealPreparationRefused    = "preparation_refused"
	SealReceiptBudgetExceeded = "receipt_budget_exceeded"
	SealHostClosed            = "host_closed"
	SealApprovalDeclined      = "approval_declined"
	SealCancelled             = "cancelled"
	SealInterrupted           = "interrupted"
	// SealCostLimitExceeded: a call's quote was over what the run's money
	// limit left, so nothing was sent and the run sealed blocked.
	SealCostLimitExceeded = "cost_limit_exceeded"
)

// Step statuses in a trace.
const (
	StepSuccess = "success"
	StepSkipped = "skipped"
	StepFailed  = "failed"
	StepRefused = "refused"
)

// SkillRun is the one JSON document `runx skill --json` prints.
type SkillRun struct {
	Schema     string          `json:"schema"`
	Status     string          `json:"status"`
	Outcome    string          `json:"outcome,omitempty"`
	SealReason string          `json:"seal_reason,omitempty"`
	SkillName  string          `json:"skill_name"`
	Method     string          `json:"method,omitempty"`
	RunID      string          `json:"run_id"`
	ReceiptID  string          `json:"receipt_id,omitempty"`
	Result     json.RawMessage `json:"result"`
	Error      *ErrorBody      `json:"error,omitempty"`
	// Refusal says why a run sealed refused (a guard, an authority or a
	// tool refused a step) beside Result, which is then what its steps
	// produced; a failed run's Result is its failure.
	Refusal *ErrorBody `json:"refusal,omitempty"`
	Trace   *Trace     `json:"trace,omitempty"`
	// A paused run carries what it waits on, a bound answers template and the
	// exact command that continues it.
	Requests        []Request       `json:"requests,omitempty"`
	AnswersTemplate *ResumeDocument `json:"answers_template,omitempty"`
	Resume          string          `json:"resume,omitempty"`
	RefusedAnswers  []RefusedAnswer `json:"refused_answers,omitempty"`
	PackageDigest   string          `json:"package_digest,omitempty"`
	ClosureDigest   string          `json:"closure_digest,omitempty"`
	// Agent is what a managed agent did when --drive worked the run.
	Agent *AgentRun `json:"agent,omitempty"`
}

// Request is one thing a paused run waits on. Its payload is what
// executes once it is answered: inline up to 64 KiB, and past that as
// PayloadArtifact, the project artifact holding its canonical JSON.
type Request struct {
	Address         string              `json:"address"`
	Kind            string              `json:"kind"`
	RequestDigest   string              `json:"request_digest"`
	Payload         json.RawMessage     `json:"payload,omitempty"`
	PayloadArtifact *ArtifactDescriptor `json:"payload_artifact,omitempty"`
	Summary         RequestSummary      `json:"summary"`
}

// ArtifactSchema names a project artifact's descriptor.
const ArtifactSchema = artifactstore.DescriptorSchema

// ArtifactDescriptor is a project artifact as runx.artifact.v1 names it
// (sdk/artifactstore owns the type, which the artifact capabilities answer).
type ArtifactDescriptor = artifactstore.Descriptor

// ArtifactLabels say who may see an artifact's content.
type ArtifactLabels = artifactstore.Labels

// RequestSummary is what a host shows before it offers an answer.
type RequestSummary struct {
	PayloadDigest string `json:"payload_digest"`
	StepID        string `json:"step_id,omitempty"`
	Title         string `json:"title,omitempty"`
}

// Request kinds.
const (
	RequestAgent    = "agent"
	RequestApproval = "approval"
	RequestQuestion = "question"
	RequestWait     = "wait"
)

// RefusedAnswer names an agent answer its step refused; the request stays open.
type RefusedAnswer struct {
	Address string    `json:"address"`
	Error   ErrorBody `json:"error"`
}

// Trace is the compact account of a run's steps: references, not payloads.
type Trace struct {
	Workflow string      `json:"workflow"`
	Status   string      `json:"status"`
	Steps    []TraceStep `json:"steps"`
}

// TraceStep is one step in a trace.
type TraceStep struct {
	StepID    string     `json:"step_id"`
	Skill     string     `json:"skill"`
	Status    string     `json:"status"`
	ReceiptID string     `json:"receipt_id,omitempty"`
	Error     *ErrorBody `json:"error,omitempty"`
}

// Trace statuses.
const (
	TraceSucceeded = "succeeded"
	TraceFailed    = "failed"
	// A run that waits on a request or that a signal stopped has not
	// failed: its trace says where it is, and a resume takes it further.
	TracePaused  = "paused"
	TraceStopped = "stopped"
)
