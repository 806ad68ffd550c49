package script

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Script ceilings, named for the capability they constrain.
const (
	MaxCalls           = 10000
	DefaultConcurrency = 4
)

// AnswerStatus is how a script worker's answer to one invocation stands.
// The kernel reads these four and refuses any other (Known).
type AnswerStatus string

// Answer statuses, listed once.
const (
	// AnswerDone: the script finished with Output, or with the first part
	// of an output past one answer.
	AnswerDone AnswerStatus = "done"
	// AnswerSuspended: the script waits on Pending.
	AnswerSuspended AnswerStatus = "suspended"
	// AnswerReplayNeeded: the worker holds no session where the record
	// continues; the kernel sends the whole record.
	AnswerReplayNeeded AnswerStatus = "replay_needed"
	// AnswerPart: one part of a finished output, as output_part asked.
	AnswerPart AnswerStatus = "part"
)

// Known reports whether s is one of the answer statuses.
func (s AnswerStatus) Known() bool {
	switch s {
	case AnswerDone, AnswerSuspended, AnswerReplayNeeded, AnswerPart:
		return true
	}
	return false
}

// RequestKind is what a script asks of the run: a pending request and its
// settled record carry it.
type RequestKind string

// Request kinds, listed once.
const (
	// KindCall calls a capability, an operation or a skill the step lists.
	KindCall RequestKind = "call"
	// KindRead reads an artifact the script was handed or a call returned.
	KindRead RequestKind = "read"
	// KindWait waits until a time, settled from the run's clock.
	KindWait RequestKind = "wait"
)

// Recorded is one settled request of a script, as the worker replays it.
type Recorded struct {
	Index       int             `json:"index"`
	Kind        RequestKind     `json:"kind"`
	Tool        string          `json:"tool,omitempty"`
	InputDigest string          `json:"input_digest,omitempty"`
	Output      json.RawMessage `json:"output,omitempty"`
	Error       *Error          `json:"error,omitempty"`
	SettledAt   int64           `json:"settled_at,omitempty"`
	// Artifact is the artifact a read gave, for the step's receipt; the
	// worker is not sent it.
	Artifact *receipt.Artifact `json:"-"`
}

// Error is what a script's rejected promise carries: the failure's
// code and message, never its detail, which the worker's protocol does not
// take.
type Error struct {
	Code    errcode.Code `json:"code"`
	Message string       `json:"message"`
}

// Pending is a request the script waits on.
type Pending struct {
	Index int             `json:"index"`
	Kind  RequestKind     `json:"kind"`
	Tool  string          `json:"tool,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	Until int64           `json:"until,omitempty"`
}

// Answer is a script worker's answer to one invocation.
type Answer struct {
	Status  AnswerStatus    `json:"status"`
	Output  json.RawMessage `json:"output"`
	Pending []Pending       `json:"pending"`
	// An output past one answer of the worker: its first part, and how
	// many parts, bytes and which digest the whole has.
	Part         *string `json:"part"`
	OutputParts  int     `json:"output_parts"`
	OutputBytes  int     `json:"output_bytes"`
	OutputDigest string  `json:"output_digest"`
}

// CallStep is the step a call runs as: a capability the script lists
// under calls.tools, a skill under calls.skills (tool "skill:<ref>"), or a
// store operation under calls.operations. Nothing unlisted is offered.
func CallStep(step *pkg.Step, p Pending) (*pkg.Step, error) {
	calls := step.Script.Calls
	if calls == nil {
		calls = &pkg.Calls{}
	}
	base := pkg.Step{ID: step.ID, Effects: step.Effects, Reach: step.Reach, TimeoutSeconds: step.TimeoutSeconds}
	switch {
	case strings.HasPrefix(p.Tool, "skill:"):
		ref := strings.TrimPrefix(p.Tool, "skill:")
		if !slices.Contains(calls.Skills, ref) {
			return nil, fmt.Errorf("script %s does not list skill %s under calls.skills", step.ID, ref)
		}
		base.Kind, base.Skill = pkg.KindSkill, ref
	case slices.Contains(calls.Operations, p.Tool):
		connector, operation, _ := strings.Cut(p.Tool, "/")
		base.Kind, base.Operation = pkg.KindOperation, &pkg.OperationStep{Ref: p.Tool, Connector: connector, Operation: operation}
	case slices.Contains(calls.Tools, p.Tool):
		base.Kind, base.Tool = pkg.KindTool, &pkg.ToolStep{Capability: p.Tool}
	default:
		return nil, fmt.Errorf("script %s does not list %q under calls; a script is offered only what its calls name", step.ID, p.Tool)
	}
	return &base, nil
}

// FailedRequest reads what a failed call or read asked (its kind, tool and
// input digest) from the detail its error recorded.
func FailedRequest(f *contract.ErrorBody) (kind RequestKind, tool, inputDigest string) {
	kind = KindCall
	if f == nil {
		return kind, "", ""
	}
	m, _ := f.Detail.(map[string]any)
	if k, _ := m["kind"].(string); k != "" {
		kind = RequestKind(k)
	}
	tool, _ = m["tool"].(string)
	inputDigest, _ = m["input_digest"].(string)
	return kind, tool, inputDigest
}

// ReadArtifacts are the artifacts the script's reads gave, each labelled
// as the step knows it (input/<name>, or call/<index> for one a call of
// the step returned).
func ReadArtifacts(record []Recorded) []receipt.Artifact {
	var out []receipt.Artifact
	for _, r := range record {
		if r.Kind == KindRead && r.Artifact != nil {
			out = append(out, *r.Artifact)
		}
	}
	return out
}

// SkillCalls counts the skill calls a script's record holds: each started
// (or was refused starting) a child run.
func SkillCalls(record []Recorded) int {
	n := 0
	for _, r := range record {
		if strings.HasPrefix(r.Tool, "skill:") {
			n++
		}
	}
	return n
}

// JoinParts takes a script's output past one answer of the worker in its
// parts (the first came with the answer; part asks the worker for the
// i-th), joins them and holds the whole to the byte count and digest the
// worker stated. A worker that no longer holds the parts answers
// replay_needed, which JoinParts hands back for the caller to handle.
func JoinParts(first *Answer, part func(i int) (*Answer, *contract.ErrorBody, contract.StepStatus)) (*Answer, *contract.ErrorBody, contract.StepStatus) {
	invalid := func(why string) (*Answer, *contract.ErrorBody, contract.StepStatus) {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the script worker's output in parts " + why}, contract.StepFailed
	}
	if first.Part == nil || first.OutputParts < 2 || first.OutputBytes <= 0 {
		return invalid("is announced without its first part")
	}
	out := make([]byte, 0, first.OutputBytes)
	out = append(out, *first.Part...)
	for i := 1; i < first.OutputParts; i++ {
		ans, failure, status := part(i)
		if failure != nil {
			return nil, failure, status
		}
		if ans.Status == AnswerReplayNeeded {
			return ans, nil, contract.StepSuccess
		}
		if ans.Status != AnswerPart || ans.Part == nil {
			return invalid("answered part " + strconv.Itoa(i) + " with something else")
		}
		if len(out)+len(*ans.Part) > first.OutputBytes {
			return invalid("holds more bytes than it stated")
		}
		out = append(out, *ans.Part...)
	}
	if len(out) != first.OutputBytes || canon.DigestBytes(out) != first.OutputDigest {
		return invalid("does not join into the bytes and digest it stated")
	}
	return &Answer{Status: AnswerDone, Output: out}, nil, contract.StepSuccess
}
