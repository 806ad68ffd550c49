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
