package process

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestSchemaStatesAreTheStates holds the process output schema's state
// enum, which callers validate against, to the states a process can be in:
// a state added to one and not the other fails here.
func TestSchemaStatesAreTheStates(t *testing.T) {
	var schema struct {
		Properties struct {
			State struct {
				Enum []State `json:"enum"`
			} `json:"state"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(processSchema), &schema); err != nil {
		t.Fatal(err)
	}
	want := []State{StateStarting, StateRunning, StateExited, StateStopped, StateTimedOut, StateFailed, StateLost}
	if got := schema.Properties.State.Enum; !slices.Equal(got, want) {
		t.Fatalf("processSchema state enum = %v, want %v", got, want)
	}
}

// TestSchemaKindsAreTheKinds holds the process output schema's kind enum,
// and command.execute's process kind, to the kinds a process is recorded
// as: a kind added to one and not the other fails here.
func TestSchemaKindsAreTheKinds(t *testing.T) {
	var schema struct {
		Properties struct {
			Kind struct {
				Enum []Kind `json:"enum"`
			} `json:"kind"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(processSchema), &schema); err != nil {
		t.Fatal(err)
	}
	if got, want := schema.Properties.Kind.Enum, []Kind{KindProcess, KindCommand}; !slices.Equal(got, want) {
		t.Fatalf("processSchema kind enum = %v, want %v", got, want)
	}
	var command struct {
		Properties struct {
			Process struct {
				Properties struct {
					Kind struct {
						Const Kind `json:"const"`
					} `json:"kind"`
				} `json:"properties"`
			} `json:"process"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(commandResponseSchema), &command); err != nil {
		t.Fatal(err)
	}
	if got := command.Properties.Process.Properties.Kind.Const; got != KindCommand {
		t.Fatalf("commandResponseSchema process kind = %q, want %q", got, KindCommand)
	}
}
