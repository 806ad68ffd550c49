package jsworker

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/runxhq/runx/plugins/jsworker/engine"
)

// TestScriptSchemasAreTheVocabulary holds js.script's declared schemas to
// the lists in code: the answer's statuses (one branch of oneOf each) to
// the ScriptStatus constants, and the request kinds a record entry and a
// pending request may carry to engine's RequestKind constants. A status or
// kind added to one and not the other fails here.
func TestScriptSchemasAreTheVocabulary(t *testing.T) {
	var answer struct {
		OneOf []struct {
			Properties struct {
				Status struct {
					Const ScriptStatus `json:"const"`
				} `json:"status"`
				Pending struct {
					Items struct {
						Properties struct {
							Kind struct {
								Enum []engine.RequestKind `json:"enum"`
							} `json:"kind"`
						} `json:"properties"`
					} `json:"items"`
				} `json:"pending"`
			} `json:"properties"`
		} `json:"oneOf"`
	}
	if err := json.Unmarshal([]byte(scriptAnswerSchema), &answer); err != nil {
		t.Fatal(err)
	}
	kinds := []engine.RequestKind{engine.KindCall, engine.KindRead, engine.KindWait}
	var statuses []ScriptStatus
	for _, b := range answer.OneOf {
		statuses = append(statuses, b.Properties.Status.Const)
		if b.Properties.Status.Const == ScriptSuspended && !slices.Equal(b.Properties.Pending.Items.Properties.Kind.Enum, kinds) {
			t.Errorf("pending kinds %v, want %v", b.Properties.Pending.Items.Properties.Kind.Enum, kinds)
		}
	}
	slices.Sort(statuses)
	want := []ScriptStatus{ScriptDone, ScriptSuspended, ScriptReplayNeeded, ScriptPart}
	slices.Sort(want)
	if !slices.Equal(statuses, want) {
		t.Errorf("answer statuses %v, want %v", statuses, want)
	}
	var request struct {
		Properties struct {
			Record struct {
				Items struct {
					Properties struct {
						Kind struct {
							Enum []engine.RequestKind `json:"enum"`
						} `json:"kind"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"record"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(scriptRequestSchema), &request); err != nil {
		t.Fatal(err)
	}
	if got := request.Properties.Record.Items.Properties.Kind.Enum; !slices.Equal(got, kinds) {
		t.Errorf("record kinds %v, want %v", got, kinds)
	}
}
