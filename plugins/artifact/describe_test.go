package artifact

import (
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

// The family describes itself well formed, and admit names its path input,
// which is how the kernel holds it to the step's reach.
func TestDescribeIsWellFormed(t *testing.T) {
	info := New().Info()
	if err := plugin.CheckInfo(&info); err != nil {
		t.Fatal(err)
	}
	admit := info.Find(AdmitCapability)
	if admit == nil || len(admit.PathInputs) != 1 || admit.PathInputs[0].Pointer != "/path" || admit.PathInputs[0].Role != plugin.PathRead {
		t.Fatalf("admit declares path inputs %+v", admit)
	}
	for id, scope := range map[string]string{AdmitCapability: "fs.read", ReadCapability: "fs.read", StoreCapability: "artifact.write", OpenCapability: "artifact.read"} {
		if d := info.Find(id); d == nil || len(d.Scopes) != 1 || d.Scopes[0] != scope {
			t.Errorf("%s scopes %+v; want %s", id, d, scope)
		}
	}
}
