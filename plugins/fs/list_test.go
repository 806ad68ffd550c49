package fs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestListOneLevelInOrder(t *testing.T) {
	root := workspace(t, map[string]string{"b.txt": "bb", "a/inner.txt": "", "c/": ""})
	var resp ListResponse
	mustOK(t, call(t, wsContext(root), CapabilityList, ListRequest{}, &resp))
	if resp.Path != "." || resp.Count != 3 || resp.Truncated {
		t.Fatalf("got %+v", resp)
	}
	want := []ListEntry{{Path: "a", Kind: KindDir}, {Path: "b.txt", Kind: KindFile}, {Path: "c", Kind: KindDir}}
	for i, e := range resp.Entries {
		if e.Path != want[i].Path || e.Kind != want[i].Kind {
			t.Fatalf("entry %d: got %+v, want %+v", i, e, want[i])
		}
	}
	if resp.Entries[1].Size == nil || *resp.Entries[1].Size != 2 {
		t.Fatalf("a file carries its size: %+v", resp.Entries[1])
	}
}

func TestListHidesGitRunxAndSecrets(t *testing.T) {
	root := workspace(t, map[string]string{
		".git/HEAD": "ref", ".runx/state.sqlite": "x", "src/main.go": "package main",
		".env": "K=v", "src/.env.local": "K=v", ".env.example": "K=", "deploy/id_ed25519": testPrivateKey,
		"deploy/id_ed25519.pub": "ssh-ed25519 AAAA", "tls/server.pem": testPrivateKey, "tls/ca.pem": testCertificate,
		".npmrc": "x", "certs/a.p12": "x",
	})
	got := listPaths(t, root, "")
	want := []string{".env.example", "certs", "deploy", "deploy/id_ed25519.pub", "src", "src/main.go", "tls", "tls/ca.pem"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// A file that is a secret by content is left out of a listing as one that
// is a secret by name is, whatever it is called, at the top and nested, in
// a one-level listing as in a recursive one: a read refuses it, and a
// listing shows not even that it is there.
func TestListHidesSecretsByContent(t *testing.T) {
	aws := "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
	root := workspace(t, map[string]string{
		"notes.txt": "my key:\n" + testPrivateKey, "backup.ini": aws, "plain.txt": "aws docs",
		"ops/creds.json": `{"Credentials": {"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}}`, "ops/run.sh": "echo",
	})
	if got, want := listPaths(t, root, ""), []string{"ops", "ops/run.sh", "plain.txt"}; !slices.Equal(got, want) {
		t.Fatalf("recursive: got %q, want %q", got, want)
	}
	var resp ListResponse
	mustOK(t, call(t, wsContext(root), CapabilityList, ListRequest{}, &resp))
	var got []string
	for _, e := range resp.Entries {
		got = append(got, e.Path)
	}
	if want := []string{"ops", "plain.txt"}; !slices.Equal(got, want) {
		t.Fatalf("one level: got %q, want %q", got, want)
	}
}

func TestListNestedWorktreeIsShownNotEntered(t *testing.T) {
	root := workspace(t, map[string]string{"app/main.go": "", "vendor/lib/.git/HEAD": "ref", "vendor/lib/lib.go": "", "vendor/lib/.gitignore": "*.tmp\n", "vendor/lib/x.tmp": ""})
	gitInit(t, root)
	var resp ListResponse
	mustOK(t, call(t, wsContext(root), CapabilityList, ListRequest{Recursive: true}, &resp))
	var paths []string
	for _, e := range resp.Entries {
		paths = append(paths, e.Path)
		if e.Path == "vendor/lib" && !e.Worktree {
			t.Fatalf("the nested worktree is not marked: %+v", e)
		}
	}
	if want := []string{"app", "app/main.go", "vendor", "vendor/lib"}; !slices.Equal(paths, want) {
		t.Fatalf("got %q, want %q", paths, want)
	}
	// Named, the worktree is entered, under its own ignore files.
	if got := listPaths(t, root, "vendor/lib"); !slices.Equal(got, []string{"vendor/lib/.gitignore", "vendor/lib/lib.go"}) {
		t.Fatalf("named worktree: got %q", got)
	}
}

func TestListDoesNotFollowSymlinks(t *testing.T) {
	outside := workspace(t, map[string]string{"far.txt": ""})
	root := workspace(t, map[string]string{"a.txt": ""})
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	var resp ListResponse
	mustOK(t, call(t, wsContext(root), CapabilityList, ListRequest{Recursive: true}, &resp))
	if len(resp.Entries) != 2 || resp.Entries[1].Path != "out" || resp.Entries[1].Kind != KindSymlink {
		t.Fatalf("got %+v", resp.Entries)
	}
	wantCode(t, call(t, wsContext(root), CapabilityList, ListRequest{Path: "out"}, nil), errcode.ReachSymlinkEscape)
}

func TestListBounds(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n+"/f.txt"] = ""
	}
	root := workspace(t, files)
	var resp ListResponse
	mustOK(t, call(t, wsContext(root), CapabilityList, ListRequest{Recursive: true, MaxEntries: 3}, &resp))
	if resp.Count != 3 || !resp.Truncated || resp.Entries[2].Path != "b" {
		t.Fatalf("got %+v", resp)
	}
	mustOK(t, call(t, wsContext(root), CapabilityList, ListRequest{Recursive: true, MaxEntries: 10}, &resp))
	if resp.Count != 10 || resp.Truncated {
		t.Fatalf("exactly enough room is not truncation: %+v", resp)
	}
	wantCode(t, call(t, wsContext(root), CapabilityList, ListRequest{MaxEntries: ListMaxEntries + 1}, nil), errcode.FSRequestInvalid)
}

func TestListRefusals(t *testing.T) {
	root := workspace(t, map[string]string{"file.txt": "", ".git/HEAD": ""})
	pc := wsContext(root)
	wantCode(t, call(t, pc, CapabilityList, ListRequest{Path: "file.txt"}, nil), errcode.FSNotADirectory)
	wantCode(t, call(t, pc, CapabilityList, ListRequest{Path: "missing"}, nil), errcode.FSNotFound)
	wantCode(t, call(t, pc, CapabilityList, ListRequest{Path: ".git"}, nil), errcode.ReachProtectedDir)
	wantCode(t, call(t, pc, CapabilityList, ListRequest{Path: ".."}, nil), errcode.ReachOutsideWorkspace)
}

func TestADirectoryWithASecretsNameIsWalked(t *testing.T) {
	root := workspace(t, map[string]string{".env/bin/activate": "export VIRTUAL_ENV", ".env/.env": "K=v"})
	if got := listPaths(t, root, ".env"); !slices.Equal(got, []string{".env/bin", ".env/bin/activate"}) {
		t.Fatalf("got %q", got)
	}
	if got := listPaths(t, root, ""); !slices.Equal(got, []string{".env", ".env/bin", ".env/bin/activate"}) {
		t.Fatalf("got %q", got)
	}
}

// A symlink is listed by what a read of it reaches: one whose target is a
// secret, by its name or by its content, is left out as the secret itself
// is (a read of it is refused), while a link to an ordinary file, or one
// leading out of reach, is still shown.
func TestListHidesALinkToASecret(t *testing.T) {
	root := workspace(t, map[string]string{".env": "K=v", "deploy.txt": testPrivateKey, "readme.txt": "hello"})
	must(t, os.Symlink(".env", filepath.Join(root, "innocent.txt")))
	must(t, os.Symlink("deploy.txt", filepath.Join(root, "notes.txt")))
	must(t, os.Symlink("readme.txt", filepath.Join(root, "plain.txt")))
	outside := workspace(t, map[string]string{"far.txt": ""})
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	if got, want := listPaths(t, root, ""), []string{"out", "plain.txt", "readme.txt"}; !slices.Equal(got, want) {
		t.Fatalf("listed %q, want %q", got, want)
	}
	for _, p := range []string{"innocent.txt", "notes.txt"} {
		wantCode(t, call(t, wsContext(root), CapabilityRead, ReadRequest{Path: p}, nil), errcode.ReachSecretRefused)
	}
}
