package contract

import (
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/sdk/artifactstore"
)

// SkillRunSchema names the envelope of a run.
const SkillRunSchema = "runx.skill_run.v1"

// RunStatus is where a run stands as its envelope tells its caller.
type RunStatus string

// Run statuses.
const (
	StatusSealed        RunStatus = "sealed"
	StatusNeedsAgent    RunStatus = "needs_agent"
	StatusNeedsApproval RunStatus = "needs_approval"
	// StatusStopped is a run a driver's SIGTERM left where it stopped, for
	// its next driver.
	StatusStopped RunStatus = "stopped"
)

// StepStatus is how a step (a fan-out item, a turn's call) settled: in a
// trace, in the run's records, in progress reports.
type StepStatus string

// Step statuses.
const (
	StepSuccess StepStatus = "success"
	StepSkipped StepStatus = "skipped"
	StepFailed  StepStatus = "failed"
	StepRefused StepStatus = "refused"
	// StepStopped is a unit a stop request interrupted (SIGTERM, an
	// interrupt): not settled, never recorded, so the run's next driver
	// runs it again.
	StepStopped StepStatus = "stopped"
)

// CallStatus is how one call of a turn stands (turn_status, the calls
// stream's events, call_cancel): the step status it settled with, or
// where it is short of settling.
type CallStatus string

// Call statuses.
const (
	CallSuccess = CallStatus(StepSuccess)
	CallFailed  = CallStatus(StepFailed)
	CallRefused = CallStatus(StepRefused)
	// CallPending: the call waits on a person's approval or on a child
	// run's requests.
	CallPending CallStatus = "pending"
	// CallExecuting: the call is in flight (a call_cancel delivered to it).
	CallExecuting CallStatus = "executing"
	// CallCancelled: its host cancelled the call before it committed
	// anything (a read stopped in flight, or a skill call whose child
	// committed no effect and sealed killed); its receipt says failed.
	CallCancelled CallStatus = "cancelled"
	// CallStopped: a skill call's child run stopped between steps on a
	// cancel; it stays where it stopped.
	CallStopped CallStatus = "stopped"
	// CallError: the call could not be made (no such tool, or refused
	// before it ran). Only the managed agent's tool result says it; no
	// call is recorded with it.
	CallError CallStatus = "error"
)

// SkillRun is the one JSON document `runx skill --json` prints.
type SkillRun struct {
	Schema     string          `json:"schema"`
	Status     RunStatus       `json:"status"`
	Outcome    seal.Outcome    `json:"outcome,omitempty"`
	SealReason seal.Reason     `json:"seal_reason,omitempty"`
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
	// Registry names the registry package the run bound, when its ref
	// named one the project installed.
	Registry *RegistryPackage `json:"registry,omitempty"`
}

// RegistryPackage is a registry package as its verified signature.json
// states it, and the newer versions a ref without a version passed over.
type RegistryPackage struct {
	Ref           string          `json:"ref"`
	Registry      string          `json:"registry"`
	Publisher     string          `json:"publisher"`
	Name          string          `json:"name"`
	Version       string          `json:"version"`
	ContentDigest string          `json:"content_digest"`
	TrustTier     string          `json:"trust_tier"`
	NewestUnread  []UnreadVersion `json:"newest_unread,omitempty"`
}

// UnreadVersion is a newer version passed over, and why this runx does
// not read it.
type UnreadVersion struct {
	Version string `json:"version"`
	Why     string `json:"why"`
}

// Request is one thing a paused run waits on. Its payload is what
// executes once it is answered: inline up to 64 KiB, and past that as
// PayloadArtifact, the project artifact holding its canonical JSON.
type Request struct {
	Address         string              `json:"address"`
	Kind            RequestKind         `json:"kind"`
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

// RequestKind is what a paused run's request asks for.
type RequestKind string

// Request kinds.
const (
	RequestAgent    RequestKind = "agent"
	RequestApproval RequestKind = "approval"
	RequestQuestion RequestKind = "question"
	RequestWait     RequestKind = "wait"
)

// RefusedAnswer names an agent answer its step refused; the request stays open.
type RefusedAnswer struct {
	Address string    `json:"address"`
	Error   ErrorBody `json:"error"`
}

// Trace is the compact account of a run's steps: references, not payloads.
type Trace struct {
	Workflow string      `json:"workflow"`
	Status   TraceStatus `json:"status"`
	Steps    []TraceStep `json:"steps"`
}

// TraceStep is one step in a trace.
type TraceStep struct {
	StepID    string     `json:"step_id"`
	Skill     string     `json:"skill"`
	Status    StepStatus `json:"status"`
	ReceiptID string     `json:"receipt_id,omitempty"`
	Error     *ErrorBody `json:"error,omitempty"`
}

// TraceStatus is where a run's steps as a whole got to.
type TraceStatus string

// Trace statuses.
const (
	TraceSucceeded TraceStatus = "succeeded"
	TraceFailed    TraceStatus = "failed"
	// A run that waits on a request or that a signal stopped has not
	// failed: its trace says where it is, and a resume takes it further.
	TracePaused  TraceStatus = "paused"
	TraceStopped TraceStatus = "stopped"
)
