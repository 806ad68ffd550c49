package connector

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// A private call is told its store's directory in the runx home; a home
// that lies inside the workspace (or reaches it through a link) keeps
// none, while runx test's disposable home is the test's own.
func TestPrivateBinding(t *testing.T) {
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{ws, home, filepath.Join(ws, ".home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	private := &sdk.Definition{ID: "mine/events.read", Effect: sdk.EffectRead, Roles: []string{sdk.RolePrivateData}}
	raw, err := PrivateBinding(private, home, "", ws)
	if err != nil {
		t.Fatal(err)
	}
	var b struct{ Dir string }
	if err := json.Unmarshal(raw, &b); err != nil || b.Dir != filepath.Join(home, PrivateDir) {
		t.Fatalf("binding %s %v", raw, err)
	}
	if err := os.Symlink(filepath.Join(ws, ".home"), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{ws, filepath.Join(ws, ".runx"), filepath.Join(ws, ".home"), filepath.Join(root, "linked")} {
		if _, err := PrivateBinding(private, h, "", ws); contract.CodeOf(err) != errcode.PrivateHomeInWorkspace {
			t.Errorf("home %s inside the workspace: %v", h, err)
		}
	}
	scratch := filepath.Join(ws, ".runx", "test", "case", ".home")
	if raw, err := PrivateBinding(private, home, scratch, ws); err != nil || json.Unmarshal(raw, &b) != nil || b.Dir != filepath.Join(scratch, PrivateDir) {
		t.Errorf("runx test's home: %s %v", raw, err)
	}
	if raw, err := PrivateBinding(&sdk.Definition{ID: "feed/items.list", Effect: sdk.EffectRead}, ws, "", ws); raw != nil || err != nil {
		t.Errorf("a connector that is not private has no private binding: %s %v", raw, err)
	}
}
