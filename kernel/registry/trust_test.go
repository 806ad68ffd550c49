package registry

import (
	"os"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// The trust store round-trips through <home>/registry/trust.json, 0600,
// merges a key's namespaces, and refuses what it cannot read.
func TestTrustStore(t *testing.T) {
	home := t.TempDir()
	empty, err := LoadTrust(home)
	if err != nil || len(empty.Keys) != 0 {
		t.Fatalf("%v %+v", err, empty)
	}
	s := newSigner(t)
	tr := &Trust{}
	if err := tr.Add(testRegistry+"/", FormatPublicKey(s.pub), "acme"); err != nil {
		t.Fatal(err)
	}
	if err := tr.Add(testRegistry, FormatPublicKey(s.pub), "acme-*", "acme"); err != nil {
		t.Fatal(err)
	}
	if err := tr.Save(home); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(TrustPath(home))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("trust.json: %v %v", err, info)
	}
	back, err := LoadTrust(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Keys) != 1 || back.Keys[0].Registry != testRegistry || len(back.Keys[0].Namespaces) != 2 {
		t.Fatalf("trust %+v", back)
	}

	for _, bad := range [][3]string{
		{testRegistry, "ssh-ed25519 AAAA", "acme"},
		{testRegistry, "ed25519:AAAA", "acme"},
		{testRegistry, FormatPublicKey(s.pub), "["},
		{testRegistry, FormatPublicKey(s.pub), ""},
		{"", FormatPublicKey(s.pub), "acme"},
	} {
		wantCode(t, (&Trust{}).Add(bad[0], bad[1], bad[2]), errcode.RegistryTrustInvalid)
	}
	wantCode(t, (&Trust{}).Add(testRegistry, FormatPublicKey(s.pub)), errcode.RegistryTrustInvalid)
	if err := os.WriteFile(TrustPath(home), []byte(`{"keys":[{"registry":"x","key":"nope","namespaces":["a"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadTrust(home)
	wantCode(t, err, errcode.RegistryTrustInvalid)
	if err := os.WriteFile(TrustPath(home), []byte(`{"keys":[],"default_trust":"all"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadTrust(home)
	wantCode(t, err, errcode.RegistryTrustInvalid)
	if err := os.WriteFile(TrustPath(home), []byte(`not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadTrust(home)
	wantCode(t, err, errcode.RegistryTrustInvalid)
}
