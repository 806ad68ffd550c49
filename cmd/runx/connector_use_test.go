package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
)

// runx connector use binds a third-party connector plugin's credential the
// same ways it binds a manifest's (--env, a piped value, --secret), found
// by the credential the plugin's description declares (POSTBOX_TOKEN), and
// the binding is what delivers it to the plugin's operations: nothing in
// the environment names POSTBOX_TOKEN here.
func TestConnectorUseBindsAPluginConnector(t *testing.T) {
	provider := testserver.StartProvider(t)
	w := postboxWorkspace(t, provider)
	var bare []string
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "POSTBOX_TOKEN=") {
			bare = append(bare, kv)
		}
	}
	w.env = bare
	list := []string{"skill", "./postbox", "list", "--json"}

	// Unpinned, the plugin is not started even to read its description.
	if doc, code := w.run("", []string{"MY_POSTBOX=" + postboxToken}, "connector", "use", "postbox", "--env", "MY_POSTBOX", "--json"); code == 0 || str(doc, "error", "code") != "plugin_unpinned" {
		t.Fatalf("an unpinned plugin connector: %d %v", code, doc)
	}
	pinPostbox(t, w)
	if doc, code := w.run("", nil, "connector", "use", "nosuch", "--json"); code == 0 || str(doc, "error", "code") != "connector_not_found" || !strings.Contains(str(doc, "error", "message"), "runx-plugin-nosuch") {
		t.Fatalf("a connector nothing declares: %d %v", code, doc)
	}
	if doc, code := w.run("", nil, "connector", "use", "postbox", "--json"); code == 0 || str(doc, "error", "code") != "credential_missing" || !strings.Contains(str(doc, "error", "message"), "POSTBOX_TOKEN") {
		t.Fatalf("nothing to bind names the declared variable: %d %v", code, doc)
	}
	if doc, code := w.run("", nil, list...); code == 0 || str(doc, "error", "code") != "credential_missing" {
		t.Fatalf("unbound, the call is refused: %d %v", code, doc)
	}

	// --env: the variable is read at run time.
	bound, code := w.run("", []string{"MY_POSTBOX=" + postboxToken}, "connector", "use", "postbox", "--env", "MY_POSTBOX", "--json")
	if code != 0 || str(bound, "credential", "env") != "MY_POSTBOX" || str(bound, "credential", "variable") != "POSTBOX_TOKEN" {
		t.Fatalf("--env: %d %v", code, bound)
	}
	if doc, code := w.run("", []string{"MY_POSTBOX=" + postboxToken}, list...); code != 0 || str(doc, "outcome") != "completed" || provider.Requests("GET /v1/messages") != 1 || provider.Unauthorized() != 0 {
		t.Fatalf("the bound variable is delivered: %d %v (unauthorized %d)", code, doc, provider.Unauthorized())
	}

	// A piped value is stored and bound.
	piped, code := w.run(postboxToken+"\n", nil, "connector", "use", "postbox", "--json")
	if code != 0 || str(piped, "credential", "secret") != "connector-postbox" {
		t.Fatalf("piped: %d %v", code, piped)
	}
	if doc, code := w.run("", nil, list...); code != 0 || str(doc, "outcome") != "completed" || provider.Requests("GET /v1/messages") != 2 || provider.Unauthorized() != 0 {
		t.Fatalf("the piped value is delivered: %d %v (unauthorized %d)", code, doc, provider.Unauthorized())
	}

	// --secret: a secret stored under another name.
	if doc, code := w.run(postboxToken, nil, "secret", "set", "team-postbox", "--json"); code != 0 {
		t.Fatalf("secret set: %d %v", code, doc)
	}
	os.Remove(filepath.Join(w.dir, ".home", "secrets", "connector-postbox"))
	if doc, code := w.run("", nil, "connector", "use", "postbox", "--secret", "team-postbox", "--json"); code != 0 || str(doc, "credential", "from") != "secret" {
		t.Fatalf("--secret: %d %v", code, doc)
	}
	if doc, code := w.run("", nil, list...); code != 0 || str(doc, "outcome") != "completed" || provider.Requests("GET /v1/messages") != 3 || provider.Unauthorized() != 0 {
		t.Fatalf("the bound secret is delivered: %d %v (unauthorized %d)", code, doc, provider.Unauthorized())
	}
	raw, _ := os.ReadFile(filepath.Join(w.dir, ".home", "connector-bindings.json"))
	if strings.Contains(string(raw), postboxToken) || !strings.Contains(string(raw), `"postbox"`) {
		t.Fatalf("the bindings file: %s", raw)
	}
}
