package receipt

import (
	"context"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func writeTrusted(tb testing.TB, home, name, content string, mode os.FileMode) {
	tb.Helper()
	dir := TrustedKeysDir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		tb.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // WriteFile's mode is subject to umask
		tb.Fatal(err)
	}
}

func pubOf(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

func TestLoadKeySetTrustsOwnAndTrustedKeys(t *testing.T) {
	home := t.TempDir()
	own, err := LoadOrCreateKey(home)
	if err != nil {
		t.Fatal(err)
	}
	friend := pubOf(testKey("friend"))
	writeTrusted(t, home, "friend.pub", EncodePublicKey(friend)+"\n", 0o644)
	writeTrusted(t, home, "ignored.txt", "not a key", 0o644)

	set, err := LoadKeySet(home)
	if err != nil {
		t.Fatal(err)
	}
	if !set.Trusts(pubOf(own)) || !set.Trusts(friend) {
		t.Fatal("own or trusted key not in the set")
	}
	if set.Trusts(pubOf(FixtureKey())) {
		t.Fatal("the public fixture key is trusted without being added")
	}
	if set.Trusts(pubOf(testKey("stranger"))) {
		t.Fatal("a stranger's key is trusted")
	}
	if got := len(set.KeyIDs()); got != 2 {
		t.Fatalf("%d keys, want 2", got)
	}
	set.Add(pubOf(FixtureKey()))
	if !set.Trusts(pubOf(FixtureKey())) {
		t.Fatal("an added fixture key is not trusted")
	}
}

func TestLoadKeySetDoesNotCreateAKey(t *testing.T) {
	home := t.TempDir()
	set, err := LoadKeySet(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.KeyIDs()) != 0 {
		t.Fatal("an empty home trusts a key")
	}
	if _, err := os.Stat(KeyPath(home)); !os.IsNotExist(err) {
		t.Fatalf("LoadKeySet created a key (%v)", err)
	}
}

// One bad file under keys/trusted/ is skipped and reported with its code,
// never trusted, and never stops the good keys beside it from being
// trusted: before, it failed every verification.
func TestLoadKeySetSkipsBadTrustedKeys(t *testing.T) {
	tests := []struct {
		name    string
		content string
		mode    os.FileMode
		code    errcode.Code
	}{
		{"not base64", "!!!", 0o644, errcode.KeyMalformed},
		{"wrong length", EncodePublicKey(make([]byte, 16)), 0o644, errcode.KeyMalformed},
		{"world writable", EncodePublicKey(pubOf(testKey("w"))), 0o666, errcode.KeyPermissionsUnsafe},
		{"group writable", EncodePublicKey(pubOf(testKey("g"))), 0o664, errcode.KeyPermissionsUnsafe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			good := pubOf(testKey("good"))
			writeTrusted(t, home, "a-good.pub", EncodePublicKey(good), 0o644)
			writeTrusted(t, home, "k.pub", tt.content, tt.mode)
			set, err := LoadKeySet(home)
			if err != nil {
				t.Fatalf("one bad trusted key failed the whole set: %v", err)
			}
			if !set.Trusts(good) {
				t.Fatal("the good key beside a bad one is not trusted")
			}
			if len(set.KeyIDs()) != 1 {
				t.Fatalf("the set trusts %d keys, want only the good one", len(set.KeyIDs()))
			}
			sk := set.Skipped()
			if len(sk) != 1 || sk[0].Code != tt.code || sk[0].Path != filepath.Join(TrustedKeysDir(home), "k.pub") {
				t.Fatalf("skipped %+v, want k.pub with %s", sk, tt.code)
			}
		})
	}
}

// A receipt signed by a good trusted key verifies while a bad key file
// sits beside it, and the report names the file skipped.
func TestVerifyWithOneBadTrustedKey(t *testing.T) {
	home := t.TempDir()
	sg := newTestSigner(t, "friend")
	writeTrusted(t, home, "friend.pub", EncodePublicKey(sg.PublicKey()), 0o644)
	writeTrusted(t, home, "broken.pub", "not a key", 0o644)
	keys, err := LoadKeySet(home)
	if err != nil {
		t.Fatal(err)
	}
	st := newTestStore(t)
	root := sealAndPutRoot(t, st, sg, runBody("run-1"))
	rep := Verify(context.Background(), st, root.r.ID, keys, Limits{})
	if rep.Status != StatusVerified {
		t.Fatalf("status %s: %s", rep.Status, describe(rep))
	}
	if len(rep.SkippedKeys) != 1 || rep.SkippedKeys[0].Code != errcode.KeyMalformed {
		t.Fatalf("skipped keys %+v, want broken.pub as %s", rep.SkippedKeys, errcode.KeyMalformed)
	}
}

func TestLoadKeySetRefusesUnsafeOwnKey(t *testing.T) {
	home := t.TempDir()
	if _, err := LoadOrCreateKey(home); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(KeyPath(home), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadKeySet(home)
	wantCode(t, err, errcode.KeyPermissionsUnsafe)
}

func TestKeySetZeroValueAndCopies(t *testing.T) {
	var set KeySet
	pub := pubOf(testKey("z"))
	if set.Trusts(pub) {
		t.Fatal("zero KeySet trusts a key")
	}
	buf := append(ed25519.PublicKey(nil), pub...)
	set.Add(buf)
	buf[0] ^= 0xff // the caller reuses its slice
	if !set.Trusts(pub) {
		t.Fatal("KeySet did not keep its own copy")
	}
	set.Add(ed25519.PublicKey{1, 2, 3})
	if len(set.KeyIDs()) != 1 {
		t.Fatal("a malformed key was added")
	}
	if !NewKeySet(pub).Trusts(pub) {
		t.Fatal("NewKeySet does not trust its key")
	}
}
