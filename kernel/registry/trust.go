package registry

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/errcode"
)

// TrustFile is the trust store's path under the runx home.
const TrustFile = "registry/trust.json"

// Trust is the trust store: the registry keys this runx home trusts, each
// only for the publisher namespaces it is given.
type Trust struct {
	Keys []TrustedKey `json:"keys"`
}

// TrustedKey is one registry key and what it may sign for. A namespace
// pattern is an exact publisher or a path.Match glob, matched against the
// publisher ("acme", "acme-*") and against publisher/name ("runx/*"); a
// connector's subject is its whole name ("google/*").
type TrustedKey struct {
	Registry   string   `json:"registry"`
	Key        string   `json:"key"`
	Namespaces []string `json:"namespaces"`
}

// TrustPath is the trust store's file in the runx home home.
func TrustPath(home string) string {
	return filepath.Join(home, filepath.FromSlash(TrustFile))
}

// LoadTrust reads the trust store of the runx home home; none yet is an
// empty store. A malformed store is refused, never read as empty.
func LoadTrust(home string) (*Trust, error) {
	raw, err := os.ReadFile(TrustPath(home))
	if errors.Is(err, fs.ErrNotExist) {
		return &Trust{}, nil
	}
	if err != nil {
		return nil, err
	}
	var t Trust
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, contract.Errorf(errcode.RegistryTrustInvalid, "%s is not a trust store: %v", TrustPath(home), err)
	}
	for _, k := range t.Keys {
		if err := checkTrustedKey(k); err != nil {
			return nil, err
		}
	}
	return &t, nil
}

// Save writes the trust store into the runx home home, 0600, atomically.
func (t *Trust) Save(home string) error {
	p := TrustPath(home)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	if t.Keys == nil {
		t.Keys = []TrustedKey{}
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(p, append(b, '\n'), 0o600)
}

// Add trusts key on registry for the namespace patterns given, merging
// them into the key's entry when it is trusted there already.
func (t *Trust) Add(registry, key string, namespaces ...string) error {
	k := TrustedKey{Registry: NormalizeRegistry(registry), Key: key, Namespaces: namespaces}
	if err := checkTrustedKey(k); err != nil {
		return err
	}
	for i := range t.Keys {
		e := &t.Keys[i]
		if NormalizeRegistry(e.Registry) == k.Registry && e.Key == key {
			e.Namespaces = sortedUnique(append(e.Namespaces, namespaces...))
			return nil
		}
	}
	k.Namespaces = sortedUnique(k.Namespaces)
	t.Keys = append(t.Keys, k)
	return nil
}

func checkTrustedKey(k TrustedKey) error {
	if k.Registry == "" {
		return contract.Errorf(errcode.RegistryTrustInvalid, "a trusted key names no registry")
	}
	if _, err := ParsePublicKey(k.Key); err != nil {
		return err
	}
	if len(k.Namespaces) == 0 {
		return contract.Errorf(errcode.RegistryTrustInvalid, "key %s on %s is trusted for no namespace: give at least one", k.Key, k.Registry)
	}
	for _, ns := range k.Namespaces {
		if _, err := path.Match(ns, "x"); err != nil || ns == "" || strings.ContainsAny(ns, "\\ ") {
			return contract.Errorf(errcode.RegistryTrustInvalid, "namespace pattern %q is not a publisher or a path.Match glob", ns)
		}
	}
	return nil
}

// covers reports whether a pattern of k matches the record's namespace.
func (k TrustedKey) covers(rec *Record) bool {
	subject := rec.Publisher + "/" + rec.Name
	if rec.Kind == KindConnector {
		subject = rec.Name
	}
	for _, ns := range k.Namespaces {
		if ns == rec.Publisher {
			return true
		}
		if ok, _ := path.Match(ns, rec.Publisher); ok {
			return true
		}
		if ok, _ := path.Match(ns, subject); ok {
			return true
		}
	}
	return false
}

// keyFor is the public key trusted on the record's registry, for its
// namespace, whose id the signature names.
func (t *Trust) keyFor(rec *Record) (ed25519.PublicKey, error) {
	reg := NormalizeRegistry(rec.Registry)
	var known bool
	if t != nil {
		for _, k := range t.Keys {
			if NormalizeRegistry(k.Registry) != reg {
				continue
			}
			pub, err := ParsePublicKey(k.Key)
			if err != nil || KeyID(pub) != rec.Signature.KeyID {
				continue
			}
			known = true
			if k.covers(rec) {
				return pub, nil
			}
		}
	}
	if known {
		return nil, contract.Errorf(errcode.RegistryKeyUntrusted, "%s is signed by key %s, which is trusted on %s but not for namespace %s; trust it for that namespace with runx registry trust add if you mean to", rec.Ref, rec.Signature.KeyID, reg, rec.Publisher)
	}
	return nil, contract.Errorf(errcode.RegistryKeyUntrusted, "%s is signed by key %s, which is not trusted on %s; trust the registry's key with runx registry trust add --registry %s --key <key> --namespace %s", rec.Ref, rec.Signature.KeyID, reg, reg, rec.Publisher)
}
