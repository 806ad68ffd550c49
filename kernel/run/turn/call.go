package turn

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// CallRequest is one call an agent makes inside an open turn (MCP's
// turn_call): admitted against the turn's declared calls, under the run's
// authority and floor, executed and recorded at <turn>/<n>.
type CallRequest struct {
	RunID string
	Turn  string
	Tool  string
	Input json.RawMessage
	// CallID is the host's own id for the call, unique within the turn: a
	// call made again with it returns the recorded call.
	CallID string
	// Act is a skill call's act, stated beside the child's inputs: it
	// becomes the child run's act ($run.act). Only a skill call takes one.
	Act string
	// Reuse is a skill call's reuse option ({max_age_seconds}): an earlier
	// sealed run of the skill under the same resolved inputs and child
	// context, no older than that, is its result (kernel/run/reuse).
	Reuse json.RawMessage
}

// CallResult is how a turn's call settled.
type CallResult struct {
	CallRecord
	// Pinned says the call was not run again: its call_id named a call the
	// run had recorded, which this is.
	Pinned bool `json:"pinned,omitempty"`
	// Waiting holds what the call waits on when the approval floor stops it.
	Waiting []contract.Request `json:"waiting,omitempty"`
}

// Callable is one call a turn may make: a capability under calls.tools, a
// connector operation under calls.operations, a skill under calls.skills
// (named skill:<ref>).
type Callable struct {
	Tool string       `json:"tool"`
	Kind CallableKind `json:"kind"`
}

// CallableKind is what a turn's call reaches.
type CallableKind string

// Callable kinds, listed once.
const (
	// CallableTool is a capability the step lists under calls.tools.
	CallableTool CallableKind = "tool"
	// CallableOperation is a connector operation under calls.operations.
	CallableOperation CallableKind = "operation"
	// CallableSkill is a skill under calls.skills, called as skill:<ref>.
	CallableSkill CallableKind = "skill"
	// CallableAskHuman is the question to a person a step that says ask:
	// true offers (AskHuman).
	CallableAskHuman CallableKind = "ask_human"
	// CallableLoad is the load of a package a step's calls.load offers.
	CallableLoad CallableKind = "load"
)

// Callables lists the calls an agent step offers its turn, in the order
// its calls declare them. ask_human is offered where the step says ask:
// true.
func Callables(step *pkg.Step) []Callable {
	var out []Callable
	if step.Agent == nil {
		return nil
	}
	if c := step.Agent.Calls; c != nil {
		for _, t := range c.Tools {
			out = append(out, Callable{Tool: t, Kind: CallableTool})
		}
		for _, o := range c.Operations {
			out = append(out, Callable{Tool: o, Kind: CallableOperation})
		}
		for _, s := range c.Skills {
			out = append(out, Callable{Tool: "skill:" + s, Kind: CallableSkill})
		}
		if len(c.Load) > 0 {
			out = append(out, Callable{Tool: Load, Kind: CallableLoad})
		}
	}
	if step.Agent.Ask {
		out = append(out, Callable{Tool: AskHuman, Kind: CallableAskHuman})
	}
	return out
}

// AskHuman is the call a turn whose step says ask: true may make to put a
// question to a person.
const AskHuman = "ask_human"

// CallStep is the step a turn's call runs as; nothing its step's calls do
// not name is offered. ask_human runs as no step (nil): a person answers
// it.
func CallStep(step *pkg.Step, tool string) (*pkg.Step, error) {
	if step.Agent == nil {
		return nil, contract.Errorf(errcode.TurnNotAgent, "step %s is not an agent turn", step.ID)
	}
	if tool == AskHuman && step.Agent.Ask {
		return nil, nil // a question for a person: the engine's Ask carries it out
	}
	calls := step.Agent.Calls
	if calls == nil {
		calls = &pkg.Calls{}
	}
	base := pkg.Step{ID: step.ID, Effects: step.Effects, Reach: step.Reach, TimeoutSeconds: step.TimeoutSeconds}
	switch {
	case strings.HasPrefix(tool, "skill:") && slices.Contains(calls.Skills, strings.TrimPrefix(tool, "skill:")):
		base.Kind, base.Skill = pkg.KindSkill, strings.TrimPrefix(tool, "skill:")
	case slices.Contains(calls.Operations, tool):
		connector, operation, _ := strings.Cut(tool, "/")
		base.Kind, base.Operation = pkg.KindOperation, &pkg.OperationStep{Ref: tool, Connector: connector, Operation: operation}
	case slices.Contains(calls.Tools, tool):
		base.Kind, base.Tool = pkg.KindTool, &pkg.ToolStep{Capability: tool}
	default:
		return nil, contract.Errorf(errcode.CallNotAllowed, "%s", fmt.Sprintf("turn %s does not list %q under calls; a turn is offered only what its calls name (turn_status lists them)", step.ID, tool))
	}
	return &base, nil
}

// skillCalls counts the skill calls a turn has made: each started (or was
// refused starting) a child run.
func skillCalls(calls []CallRecord) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c.Tool, "skill:") {
			n++
		}
	}
	return n
}

func callIDConflict(id string) error {
	return contract.Errorf(errcode.CallIDConflict, "call_id %q names a call of this turn made with another tool or input; a call_id is one call", id)
}

// pinnedCall is the recorded call a call names by its call_id. A call
// without one names a call the floor stopped, made without a call_id, of
// the same tool and input: it has no other way to be made again.
func pinnedCall(calls []CallRecord, id, tool, digest string) *CallRecord {
	for i := range calls {
		c := &calls[i]
		if id != "" && c.CallID == id {
			return c
		}
		if id == "" && c.CallID == "" && c.floor && c.Status == contract.CallPending && c.Tool == tool && c.InputDigest == digest {
			return c
		}
	}
	return nil
}
