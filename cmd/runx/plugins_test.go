package main

import (
	"testing"

	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Every compiled-in plugin obeys the naming rule (served under the name it
// describes itself by, each capability prefixed with it) and describes
// itself well formed: what the kernel reads in process is what the host
// would check on a started plugin.
func TestFirstPartyPluginsAreNamedAndWellFormed(t *testing.T) {
	for name, newPlugin := range firstParty {
		info := newPlugin().Info()
		if info.Name != name {
			t.Errorf("plugin served as %q describes itself as %q", name, info.Name)
		}
		if err := sdk.CheckInfo(&info); err != nil {
			t.Error(err)
		}
		for _, d := range info.Capabilities {
			if sdk.PluginOf(d.ID) != name {
				t.Errorf("%s is served by %q", d.ID, name)
			}
		}
	}
}
