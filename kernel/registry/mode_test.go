package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// toolConnector is a connector package carrying an executable tool.
func toolConnector() map[string][]byte {
	return map[string][]byte{
		"connector.yaml": []byte(connectorYAML("google/calendar")),
		"tool.sh":        []byte("#!/bin/sh\necho ok\n"),
	}
}

// A file's executable bit is part of the package: Build records it, the
// content digest covers it, and BuildFiles takes it by name.
func TestBuildRecordsTheExecutableBit(t *testing.T) {
	dir := writeTree(t, toolConnector())
	plain, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	exec, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := exec.Executables(); len(got) != 1 || got[0] != "tool.sh" {
		t.Fatalf("executables %v", got)
	}
	if len(plain.Executables()) != 0 || plain.ContentDigest == exec.ContentDigest || plain.Version == exec.Version {
		t.Fatalf("the executable bit is not in the content digest: %s %s", plain.ContentDigest, exec.ContentDigest)
	}
	fromBytes, err := BuildFiles(KindConnector, toolConnector(), "tool.sh")
	if err != nil || fromBytes.ContentDigest != exec.ContentDigest {
		t.Fatalf("BuildFiles with tool.sh executable: %v %v", fromBytes, err)
	}
	_, err = BuildFiles(KindConnector, toolConnector(), "absent.sh")
	wantCode(t, err, errcode.RegistryPathInvalid)
	_, err = BuildFiles(KindConnector, map[string][]byte{"connector.yaml": []byte(connectorYAML("google/calendar")), ManifestFile: nil}, ManifestFile)
	wantCode(t, err, errcode.RegistryPackageInvalid)
}

// A setuid, setgid or sticky bit is refused by name.
func TestBuildRefusesOtherModeBits(t *testing.T) {
	for _, c := range []struct {
		mode os.FileMode
		name string
	}{{os.ModeSetuid | 0o755, "setuid"}, {os.ModeSticky | 0o644, "sticky"}} {
		dir := writeTree(t, toolConnector())
		p := filepath.Join(dir, "tool.sh")
		if err := os.Chmod(p, c.mode); err != nil {
			t.Fatal(err)
		}
		if info, err := os.Stat(p); err != nil || info.Mode()&(os.ModeSetuid|os.ModeSticky) == 0 {
			t.Skipf("this system does not keep the %s bit on a file", c.name)
		}
		_, err := Build(dir)
		wantCode(t, err, errcode.RegistryFileModeUnsupported)
		if msg := err.Error(); !strings.Contains(msg, "tool.sh") || !strings.Contains(msg, c.name) {
			t.Fatalf("the refusal names neither the file nor the bit: %s", msg)
		}
	}
}

// An install writes an executable file executable (the tool runs), and
// VerifyInstalled refuses an installed file whose executable bit changed
// either way, or that gained a setuid bit.
func TestInstallKeepsTheExecutableBit(t *testing.T) {
	s := newSigner(t)
	tr := s.trustFor(t, "google")
	files := toolConnector()
	files["README.md"] = []byte("# calendar\n")
	p, err := BuildFiles(KindConnector, files, "tool.sh")
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecord(p, testRegistry, "google", TierCommunity, time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	if err := Sign(rec, s.priv); err != nil {
		t.Fatal(err)
	}
	files[ManifestFile], _ = p.ManifestBytes()
	project := filepath.Join(t.TempDir(), ".runx")
	res, err := Install(project, rec, files, tr)
	if err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(res.Dir, "tool.sh")
	if info, err := os.Stat(tool); err != nil || info.Mode().Perm()&0o100 == 0 {
		t.Fatalf("tool.sh installed without its executable bit: %v %v", info.Mode(), err)
	}
	if info, err := os.Stat(filepath.Join(res.Dir, "README.md")); err != nil || info.Mode().Perm()&0o111 != 0 {
		t.Fatalf("README.md installed executable: %v %v", info.Mode(), err)
	}
	if _, err := VerifyInstalled(res.Dir, tr); err != nil {
		t.Fatal(err)
	}
	again, err := Install(project, rec, files, tr)
	if err != nil || again.Status != StatusUnchanged {
		t.Fatalf("install again: %v %v", again, err)
	}

	chmod := func(p string, m os.FileMode) {
		t.Helper()
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	chmod(tool, 0o644)
	_, err = VerifyInstalled(res.Dir, tr)
	wantCode(t, err, errcode.RegistryPackageAltered)
	_, err = Install(project, rec, files, tr)
	wantCode(t, err, errcode.RegistryVersionConflict)
	chmod(tool, 0o755)
	chmod(filepath.Join(res.Dir, "README.md"), 0o755)
	_, err = VerifyInstalled(res.Dir, tr)
	wantCode(t, err, errcode.RegistryPackageAltered)
	chmod(filepath.Join(res.Dir, "README.md"), 0o644)
	chmod(tool, os.ModeSetuid|0o755)
	if info, _ := os.Stat(tool); info.Mode()&os.ModeSetuid != 0 {
		_, err = VerifyInstalled(res.Dir, tr)
		wantCode(t, err, errcode.RegistryFileModeUnsupported)
	}
	chmod(tool, 0o755)
	if _, err := VerifyInstalled(res.Dir, tr); err != nil {
		t.Fatal(err)
	}
}
