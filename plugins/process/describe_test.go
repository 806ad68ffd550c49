package process

import (
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

func TestProcessToolsDeclareEffectAndArgv(t *testing.T) {
	cmdInfo := NewCommand().Info()
	cmd := cmdInfo.Find(CommandCapability)
	if cmd.Effect != plugin.EffectProcess || cmd.ArgvInput != "/argv" ||
		len(cmd.PathInputs) != 1 || cmd.PathInputs[0] != (plugin.PathInput{Pointer: "/cwd", Role: plugin.PathRead}) {
		t.Errorf("command.execute: %+v", cmd)
	}
	runInfo := New().Info()
	run := runInfo.Find(Capability)
	if run.Effect != plugin.EffectProcess || run.ArgvInput != "/argv" || len(run.PathInputs) != 0 {
		t.Errorf("process.run: %+v", run)
	}
}
