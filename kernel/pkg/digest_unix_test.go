//go:build unix

package pkg

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestPackageDigestRefusesSpecialFiles(t *testing.T) {
	dir := writePackage(t, map[string]string{"SKILL.md": testSkillMD})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := PackageDigest(dir)
	wantRefusal(t, err, errcode.PackageFileUnsupported, 0, 0)
}
