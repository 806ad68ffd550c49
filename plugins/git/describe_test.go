package git

import (
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

func TestEveryToolDeclaresItsPathAsARead(t *testing.T) {
	for _, d := range New().Info().Capabilities {
		if d.Effect != plugin.EffectRead || len(d.PathInputs) != 1 || d.PathInputs[0] != (plugin.PathInput{Pointer: "/path", Role: plugin.PathRead}) {
			t.Errorf("%s: effect %s path inputs %+v", d.ID, d.Effect, d.PathInputs)
		}
	}
}
