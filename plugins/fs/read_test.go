package fs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestReadReturnsContentAndDigest(t *testing.T) {
	root := workspace(t, map[string]string{"docs/a.md": "héllo\n"})
	var resp ReadResponse
	mustOK(t, call(t, wsContext(root), CapabilityRead, ReadRequest{Path: "docs/a.md"}, &resp))
	sum := sha256.Sum256([]byte("héllo\n"))
	if resp.Content != "héllo\n" || resp.Size != int64(len("héllo\n")) || resp.Path != "docs/a.md" ||
		resp.ContentDigest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("got %+v", resp)
	}
}

func TestReadBounds(t *testing.T) {
	root := workspace(t, map[string]string{
		"small.txt": strings.Repeat("a", 100),
		"big.txt":   strings.Repeat("b", ReadDefaultMaxBytes+1),
		"huge.txt":  strings.Repeat("c", ReadMaxBytes+1),
	})
	pc := wsContext(root)
	mustOK(t, call(t, pc, CapabilityRead, ReadRequest{Path: "small.txt", MaxBytes: 100}, nil))
	wantCode(t, call(t, pc, CapabilityRead, ReadRequest{Path: "small.txt", MaxBytes: 99}, nil), errcode.FSReadTooLarge)
	wantCode(t, call(t, pc, CapabilityRead, ReadRequest{Path: "big.txt"}, nil), errcode.FSReadTooLarge)
	mustOK(t, call(t, pc, CapabilityRead, ReadRequest{Path: "big.txt", MaxBytes: ReadMaxBytes}, nil))
	wantCode(t, call(t, pc, CapabilityRead, ReadRequest{Path: "huge.txt", MaxBytes: ReadMaxBytes}, nil), errcode.FSReadTooLarge)
	wantCode(t, call(t, pc, CapabilityRead, ReadRequest{Path: "small.txt", MaxBytes: ReadMaxBytes + 1}, nil), errcode.FSRequestInvalid)
	wantCode(t, call(t, pc, CapabilityRead, ReadRequest{Path: "small.txt", MaxBytes: -1}, nil), errcode.FSRequestInvalid)
}

func TestReadRefusals(t *testing.T) {
	root := workspace(t, map[string]string{"bin.dat": "ab\x00cd", "latin1.txt": "caf\xe9", "dir/": ""})
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	pc := wsContext(root)
	for name, tc := range map[string]struct {
		input any
		code  errcode.Code
	}{
		"NUL byte":       {ReadRequest{Path: "bin.dat"}, errcode.FSBinaryRefused},
		"invalid UTF-8":  {ReadRequest{Path: "latin1.txt"}, errcode.FSBinaryRefused},
		"missing":        {ReadRequest{Path: "nope.txt"}, errcode.FSNotFound},
		"directory":      {ReadRequest{Path: "dir"}, errcode.FSNotAFile},
		"fifo":           {ReadRequest{Path: "fifo"}, errcode.FSNotAFile},
		"no path":        {ReadRequest{}, errcode.FSRequestInvalid},
		"unknown field":  {map[string]any{"path": "a", "offset": 3}, errcode.FSRequestInvalid},
		"not an object":  {[]int{1}, errcode.FSRequestInvalid},
		"missing parent": {ReadRequest{Path: "no/such/dir/x"}, errcode.FSNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, call(t, pc, CapabilityRead, tc.input, nil), tc.code)
		})
	}
}

func TestReadOfAnEmptyFile(t *testing.T) {
	root := workspace(t, map[string]string{"empty": ""})
	var resp ReadResponse
	mustOK(t, call(t, wsContext(root), CapabilityRead, ReadRequest{Path: "empty"}, &resp))
	if resp.Size != 0 || resp.ContentDigest != DigestBytes(nil) {
		t.Fatalf("got %+v", resp)
	}
}

func TestUnknownCapability(t *testing.T) {
	root := workspace(t, nil)
	wantCode(t, call(t, wsContext(root), "fs.chmod", map[string]string{}, nil), "capability_not_found")
}

func TestReadDoesNotFollowAFileSwappedForALink(t *testing.T) {
	outside := workspace(t, map[string]string{"secret.txt": "outside"})
	root := workspace(t, map[string]string{"a.txt": "inside"})
	scope, res := NewScope(wsContext(root))
	if res != nil {
		t.Fatal(res.Message)
	}
	target, res := scope.Resolve("a.txt")
	if res != nil {
		t.Fatal(res.Message)
	}
	// Swap the file for a symlink out of the workspace after it was judged.
	must(t, os.Remove(filepath.Join(root, "a.txt")))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "a.txt")))
	if content, res := readContained(target, "a.txt", ReadDefaultMaxBytes); res == nil {
		t.Fatalf("read followed the swapped link: %q", content)
	}
}
