package turn

import (
	"maps"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/packet"
	"github.com/runxhq/runx/sdk/artifactstore"
)

// Outcome is what a settled call's event in the run's calls stream says
// of how it ended, so a host reads every call's outcome from the run
// alone (runx history --json): a completed call's output as project
// artifacts of the run, each packet output's by name (artifacts, kept when
// the call's unit settled) and one for the rest of its output (rest); a
// refused or failed call's reason. The rest is kept here, labelled
// call/<address>/rest, in the project's artifact store.
func Outcome(projectDir, runID, address string, status contract.StepStatus, output any, kept map[string]artifactstore.Descriptor, failure *contract.ErrorBody) (map[string]any, error) {
	if status != contract.StepSuccess {
		if failure == nil {
			return nil, nil
		}
		return map[string]any{"reason": map[string]any{"code": failure.Code, "message": failure.Message}}, nil
	}
	out := map[string]any{}
	if len(kept) > 0 {
		out["artifacts"] = maps.Clone(kept)
	}
	rest := output
	if m, ok := output.(map[string]any); ok && len(kept) > 0 {
		r := maps.Clone(m)
		for name := range kept {
			delete(r, name)
		}
		rest = r
		if len(r) == 0 {
			rest = nil
		}
	}
	if rest != nil {
		store, err := artifactstore.Open(projectDir)
		if err != nil {
			return nil, err
		}
		d, err := packet.KeepValue(store, runID, "call/"+address+"/rest", rest)
		if err != nil {
			return nil, err
		}
		out["rest"] = d
	}
	return out, nil
}
