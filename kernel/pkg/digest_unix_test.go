//go:build unix

package pkg

import (
	"path/filepath"
	"syscall"
	"testing"
)

func TestPackageDigestRefusesSpecialFiles(t *testing.T) {
	dir := writePackage(t, map[string]string{"SKILL.md": testSkillMD})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := PackageDigest(dir)
	wantRefusal(t, err, CodePackageFileUnsupported, 0, 0)
}
