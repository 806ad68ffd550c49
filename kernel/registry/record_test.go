package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// A signed record verifies with its files under a key trusted for its
// namespace, and the record survives signature.json's encoding.
func TestSignVerify(t *testing.T) {
	s := newSigner(t)
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	if rec.Ref != "acme/weather@1.2.0" || rec.Registry != testRegistry || !strings.HasPrefix(rec.Signature.KeyID, "ed25519:") || len(rec.Signature.KeyID) != len("ed25519:")+16 {
		t.Fatalf("record %+v %+v", rec, rec.Signature)
	}
	if err := Verify(rec, files, s.trustFor(t, "acme")); err != nil {
		t.Fatal(err)
	}
	raw, err := rec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseRecord(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(back, files, s.trustFor(t, "acme")); err != nil {
		t.Fatal(err)
	}
}

// One altered, added or missing byte of the package is refused.
func TestVerifyRefusesAlteredFiles(t *testing.T) {
	s := newSigner(t)
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	tr := s.trustFor(t, "acme")
	edit := func(f func(map[string][]byte)) map[string][]byte {
		cp := map[string][]byte{}
		for k, v := range files {
			cp[k] = append([]byte(nil), v...)
		}
		f(cp)
		return cp
	}
	for name, fs := range map[string]map[string][]byte{
		"one byte": edit(func(m map[string][]byte) { m["run.yaml"][0] ^= 1 }),
		"added":    edit(func(m map[string][]byte) { m["extra.js"] = []byte("x") }),
		"missing":  edit(func(m map[string][]byte) { delete(m, "tests/none.txt") }),
		"swapped":  edit(func(m map[string][]byte) { m["tests/none.txt"], m["tests/other.txt"] = nil, m["tests/none.txt"] }),
	} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, Verify(rec, fs, tr), errcode.RegistryPackageAltered)
		})
	}
}

// A record changed after signing is refused.
func TestVerifyRefusesAlteredRecord(t *testing.T) {
	s := newSigner(t)
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	rec.Description = "something else"
	wantCode(t, Verify(rec, files, s.trustFor(t, "acme")), errcode.RegistrySignatureInvalid)
	rec.Description, rec.TrustTier = "Read the weather.", TierFirstParty
	wantCode(t, Verify(rec, files, s.trustFor(t, "acme")), errcode.RegistrySignatureInvalid)
	rec.TrustTier = TierCommunity
	if err := Verify(rec, files, s.trustFor(t, "acme")); err != nil {
		t.Fatal(err)
	}
	rec.Signature = nil
	wantCode(t, Verify(rec, files, s.trustFor(t, "acme")), errcode.RegistrySignatureInvalid)
}

// A key is trusted only for the namespaces it is given, on its registry:
// another namespace's key, an unknown key and the same key on another
// registry are refused.
func TestVerifyKeyScopedToNamespace(t *testing.T) {
	s := newSigner(t)
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	wantCode(t, Verify(rec, files, s.trustFor(t, "other")), errcode.RegistryKeyUntrusted)
	wantCode(t, Verify(rec, files, s.trustFor(t, "acme-*")), errcode.RegistryKeyUntrusted)
	wantCode(t, Verify(rec, files, newSigner(t).trustFor(t, "acme")), errcode.RegistryKeyUntrusted)
	wantCode(t, Verify(rec, files, &Trust{}), errcode.RegistryKeyUntrusted)
	var nilTrust *Trust
	wantCode(t, Verify(rec, files, nilTrust), errcode.RegistryKeyUntrusted)
	elsewhere := &Trust{}
	if err := elsewhere.Add("https://other.example", FormatPublicKey(s.pub), "acme"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, Verify(rec, files, elsewhere), errcode.RegistryKeyUntrusted)
	// A second key trusted for acme does not lend its scope to the first.
	both := s.trustFor(t, "other")
	if err := both.Add(testRegistry, FormatPublicKey(newSigner(t).pub), "acme"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, Verify(rec, files, both), errcode.RegistryKeyUntrusted)

	for _, ok := range []string{"acme", "ac*", "acme/*", "acme/weather", "*"} {
		if err := Verify(rec, files, s.trustFor(t, ok)); err != nil {
			t.Errorf("pattern %q: %v", ok, err)
		}
	}
	labs, lfiles := s.publish(t, KindSkill, "acme-labs", skillFiles())
	if err := Verify(labs, lfiles, s.trustFor(t, "acme-*")); err != nil {
		t.Fatal(err)
	}
}

// A record naming a path that escapes the package is refused even when it
// is signed.
func TestRecordRefusesEscapingPaths(t *testing.T) {
	s := newSigner(t)
	for _, p := range []string{"../../evil", "/etc/cron.d/x", `..\evil`, "a/../../b", "sub/./x"} {
		rec, files := s.publish(t, KindSkill, "acme", skillFiles())
		rec.Files = append(rec.Files, File{Path: p, Digest: rec.Files[0].Digest, Size: rec.Files[0].Size})
		sortFiles(rec.Files)
		rec.ContentDigest, _ = ContentDigest(rec.Files)
		if err := Sign(rec, s.priv); err != nil {
			t.Fatal(err)
		}
		files[p] = files[rec.Files[0].Path]
		wantCode(t, Verify(rec, files, s.trustFor(t, "acme")), errcode.RegistryPathInvalid)
	}
}

// A record is read strictly: an unknown field, a key given twice or a
// record that does not describe its package is refused.
func TestParseRecordStrict(t *testing.T) {
	s := newSigner(t)
	rec, files := s.publish(t, KindSkill, "acme", skillFiles())
	raw, _ := json.Marshal(rec)
	extra := strings.Replace(string(raw), `{"schema"`, `{"extra":1,"schema"`, 1)
	_, err := ParseRecord([]byte(extra))
	wantCode(t, err, errcode.RegistryRecordInvalid)
	dup := strings.Replace(string(raw), `{"schema"`, `{"name":"x","schema"`, 1)
	_, err = ParseRecord([]byte(dup))
	wantCode(t, err, errcode.RegistryRecordInvalid)
	_, err = ParseRecord(make([]byte, MaxRecordBytes+1))
	wantCode(t, err, errcode.RegistryRecordInvalid)

	for name, edit := range map[string]func(r *Record){
		"ref":            func(r *Record) { r.Ref = "acme/other@1.2.0" },
		"content digest": func(r *Record) { r.ContentDigest = r.Files[0].Digest },
		"format":         func(r *Record) { r.PackageFormat = 2 },
		"schema":         func(r *Record) { r.Schema = "x" },
		"tier":           func(r *Record) { r.TrustTier = "gold" },
		"version":        func(r *Record) { r.Version = "1.2"; r.Ref = "acme/weather@1.2" },
		"manifest":       func(r *Record) { r.Name = "other"; r.Ref = "acme/other@1.2.0" },
		"unsorted":       func(r *Record) { r.Files[0], r.Files[1] = r.Files[1], r.Files[0] },
	} {
		t.Run(name, func(t *testing.T) {
			r, _ := ParseRecord(raw)
			edit(r)
			if err := Sign(r, s.priv); err != nil {
				t.Fatal(err)
			}
			wantCode(t, Verify(r, files, s.trustFor(t, "acme")), errcode.RegistryRecordInvalid)
		})
	}
}

// A connector record names a connector in its publisher's namespace.
func TestConnectorRecordNamespace(t *testing.T) {
	s := newSigner(t)
	files := map[string][]byte{"connector.yaml": []byte(connectorYAML("google/calendar"))}
	rec, all := s.publish(t, KindConnector, "acme", files)
	wantCode(t, Verify(rec, all, s.trustFor(t, "*")), errcode.RegistryRecordInvalid)
	rec, all = s.publish(t, KindConnector, "google", files)
	if rec.Ref != "google/calendar@"+rec.Version || !strings.HasPrefix(rec.Version, "sha-") {
		t.Fatalf("ref %s", rec.Ref)
	}
	if err := Verify(rec, all, s.trustFor(t, "google/*")); err != nil {
		t.Fatal(err)
	}
	wantCode(t, Verify(rec, all, s.trustFor(t, "acme")), errcode.RegistryKeyUntrusted)
}

func sortFiles(files []File) {
	for i := 1; i < len(files); i++ {
		for j := i; j > 0 && files[j].Path < files[j-1].Path; j-- {
			files[j], files[j-1] = files[j-1], files[j]
		}
	}
}
