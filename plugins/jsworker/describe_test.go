package jsworker

import (
	"context"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

func TestModuleAndScriptRoles(t *testing.T) {
	info := New().Info()
	if d := info.Find(Capability); d == nil || !d.HasRole(plugin.RoleModule) || len(d.Roles) != 1 {
		t.Errorf("js.module: %+v", d)
	}
	if d := info.Find(ScriptCapability); d == nil || !d.HasRole(plugin.RoleScript) || len(d.Roles) != 1 {
		t.Errorf("js.script: %+v", d)
	}
}

func TestUnknownCapabilityIsRefused(t *testing.T) {
	res := New().Invoke(context.Background(), &plugin.Call{Capability: "js.other", Input: []byte(`{}`)})
	if res.Status != plugin.StatusRefused || res.Code != "capability_not_found" {
		t.Fatalf("%+v", res)
	}
}
