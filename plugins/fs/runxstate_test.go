package fs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
)

// runx's home inside the workspace, named in the call's protected roots:
// fs reads, writes and lists nothing of it, at either reach, and a link
// into it is neither followed nor shown.
func TestProtectedRootsOutOfReach(t *testing.T) {
	root := workspace(t, map[string]string{"home/secrets/x": "topsecret", "home/keys/trusted/": "", "ok.txt": "fine"})
	must(t, os.Symlink("home/secrets", filepath.Join(root, "peek")))
	must(t, os.Symlink("home/keys/trusted/forged.pub", filepath.Join(root, "plant.pub")))
	for _, reach := range []string{ReachWorkspace, ReachInputs} {
		pc := changeContext(root)
		pc.Reach = reach
		pc.ProtectedRoots = []string{filepath.Join(root, "home")}
		for _, p := range []string{"home/secrets/x", "peek/x", "sub/../home/secrets/x", filepath.Join(root, "home/secrets/x")} {
			wantCode(t, call(t, pc, CapabilityRead, ReadRequest{Path: p}, nil), errcode.ReachProtectedDir)
		}
		for _, p := range []string{"home/keys/trusted/forged.pub", "plant.pub"} {
			wantCode(t, call(t, pc, CapabilityWrite, WriteRequest{Path: p, Content: str("AAAA"), Create: true}, nil), errcode.ReachProtectedDir)
		}
		if _, err := os.Lstat(filepath.Join(root, "home/keys/trusted/forged.pub")); !os.IsNotExist(err) {
			t.Fatalf("%s: a key was planted: %v", reach, err)
		}
		wantCode(t, call(t, pc, CapabilityList, ListRequest{Path: "home"}, nil), errcode.ReachProtectedDir)
		var list ListResponse
		mustOK(t, call(t, pc, CapabilityList, ListRequest{Path: ".", Recursive: true}, &list))
		var paths []string
		for _, e := range list.Entries {
			paths = append(paths, e.Path)
		}
		if !slices.Equal(paths, []string{"ok.txt"}) {
			t.Errorf("%s: the listing shows %v, want only ok.txt", reach, paths)
		}
		var found SearchResponse
		mustOK(t, call(t, pc, CapabilitySearch, SearchRequest{Path: ".", Query: "topsecret"}, &found))
		if found.Count != 0 || found.FilesSearched != 1 {
			t.Errorf("%s: search reached the home: %+v", reach, found)
		}
	}
}

// A secret by content, whatever its name: fs.read refuses it, fs.search
// shows none of its lines, and no write makes one.
func TestSecretContentUnderAnyName(t *testing.T) {
	aws := "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
	root := workspace(t, map[string]string{"notes.txt": "key:\n" + testPrivateKey, "backup.ini": aws, "plain.txt": "aws docs"})
	pc := changeContext(root)
	for _, p := range []string{"notes.txt", "backup.ini"} {
		res := call(t, pc, CapabilityRead, ReadRequest{Path: p}, nil)
		wantCode(t, res, errcode.ReachSecretRefused)
		if strings.Contains(res.Message, "AKIA") || strings.Contains(res.Message, "b3Bl") {
			t.Errorf("the refusal shows the secret: %s", res.Message)
		}
	}
	var found SearchResponse
	mustOK(t, call(t, pc, CapabilitySearch, SearchRequest{Path: ".", Query: "a"}, &found))
	for _, m := range found.Matches {
		if m.Path != "plain.txt" {
			t.Errorf("search shows a line of %s", m.Path)
		}
	}
	res := call(t, pc, CapabilityWrite, WriteRequest{Path: "todo.txt", Content: str(testPrivateKey), Create: true}, nil)
	wantCode(t, res, errcode.ReachSecretRefused)
	if !strings.Contains(res.Message, pathpolicy.PatternPrivateKeyContent) {
		t.Errorf("the refusal names no rule: %s", res.Message)
	}
}
