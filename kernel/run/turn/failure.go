package turn

import "github.com/runxhq/runx/kernel/pkg"

// Failure reads a turn's answer as a failure: an object holding only
// failure, with a non-empty reason. A step that declares an output named
// failure keeps it as output.
func Failure(step *pkg.Step, output any) (string, bool) {
	m, ok := output.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	if _, declared := step.Outputs["failure"]; declared {
		return "", false
	}
	f, ok := m["failure"].(map[string]any)
	if !ok {
		return "", false
	}
	reason, ok := f["reason"].(string)
	return reason, ok && reason != ""
}
