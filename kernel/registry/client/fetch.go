package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
)

// Record reads the signed record of one version of ref's package, of kind,
// and checks it names that package and version. It is not yet verified:
// Install and Verify check its signature.
func (c *Client) Record(ctx context.Context, kind string, ref Ref, version string) (*registry.Record, error) {
	p := ref.versionPath(kind, version, "record")
	raw, err := c.exchange(ctx, "GET", p, nil, nil, false, c.recordLimit)
	if err != nil {
		return nil, err
	}
	rec, err := registry.ParseRecord(raw)
	if err != nil {
		return nil, err
	}
	if err := c.checkNames(rec, kind, ref, version); err != nil {
		return nil, err
	}
	return rec, nil
}

// checkNames refuses a record naming another package, kind or version than
// the one asked for: a registry could otherwise answer with another
// package its key signed.
func (c *Client) checkNames(rec *registry.Record, kind string, ref Ref, version string) error {
	name, publisher := ref.Name, ""
	if kind == KindSkill {
		publisher, name, _ = strings.Cut(ref.Name, "/")
	}
	if registry.NormalizeRegistry(rec.Registry) != c.base {
		return contract.Errorf(errcode.RegistryRecordMismatch, "the record of %s@%s was signed for the registry %s, not %s, the one runx asked", ref.Name, version, c.scrub(rec.Registry), c.base)
	}
	if string(rec.Kind) != kind || rec.Name != name || rec.Publisher != publisher && kind == KindSkill || rec.Version != version {
		return contract.Errorf(errcode.RegistryRecordMismatch, "asked for %s %s@%s, the registry's signed record names %s %s@%s", kind, ref.Name, version, c.scrub(string(rec.Kind)), c.scrub(recordName(rec)), c.scrub(rec.Version))
	}
	return nil
}

func recordName(rec *registry.Record) string {
	if rec.Kind == registry.KindSkill {
		return rec.Publisher + "/" + rec.Name
	}
	return rec.Name
}

// Files reads the files of the version rec records and checks them against
// it: every path a plain relative path the record names, once, every file
// the record names present, with the size and sha256 it records. Nothing
// is written here; a refusal leaves nothing behind.
func (c *Client) Files(ctx context.Context, kind string, ref Ref, rec *registry.Record) (map[string][]byte, error) {
	p := ref.versionPath(kind, rec.Version, "files")
	raw, err := c.exchange(ctx, "GET", p, nil, nil, false, c.filesLimit)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Files []wireFile `json:"files"`
	}
	if err := decode(raw, &doc, p); err != nil {
		return nil, err
	}
	return c.checkFiles(rec, doc.Files)
}

// checkFiles holds files to exactly what rec records.
func (c *Client) checkFiles(rec *registry.Record, got []wireFile) (map[string][]byte, error) {
	want := make(map[string]registry.File, len(rec.Files))
	for _, f := range rec.Files {
		if !plainPath(f.Path) {
			return nil, contract.Errorf(errcode.RegistryPathInvalid, "the signed record names %q, which is not a plain relative path inside the package", c.scrub(f.Path))
		}
		want[f.Path] = f
	}
	files := make(map[string][]byte, len(got))
	for _, f := range got {
		if !plainPath(f.Path) {
			return nil, contract.Errorf(errcode.RegistryPathInvalid, "the registry sent a file at %q, which is not a plain relative path inside the package; nothing was written", c.scrub(f.Path))
		}
		if _, dup := files[f.Path]; dup {
			return nil, contract.Errorf(errcode.RegistryPathInvalid, "the registry sent %s twice; nothing was written", f.Path)
		}
		w, ok := want[f.Path]
		if !ok {
			return nil, contract.Errorf(errcode.RegistryPackageAltered, "the registry sent %s, which the signed record does not name; nothing was written", f.Path)
		}
		sum := sha256.Sum256(f.Data)
		if int64(len(f.Data)) != w.Size || "sha256:"+hex.EncodeToString(sum[:]) != w.Digest {
			return nil, contract.Errorf(errcode.RegistryPackageAltered, "the registry sent other bytes for %s than the signed record names; nothing was written", f.Path)
		}
		files[f.Path] = f.Data
	}
	for p := range want {
		if _, ok := files[p]; !ok {
			return nil, contract.Errorf(errcode.RegistryPackageAltered, "the registry did not send %s, which the signed record names; nothing was written", p)
		}
	}
	return files, nil
}

// plainPath is a slash path inside a package: relative, clean, no "..",
// no backslash, no NUL, no empty segment.
func plainPath(p string) bool {
	if p == "" || p == "." || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") || path.Clean(p) != p {
		return false
	}
	for _, s := range strings.Split(p, "/") {
		if s == ".." || s == "." || s == "" {
			return false
		}
	}
	return true
}

// decodeRecord reads one record a host holds (runx registry install
// --records) and checks it was signed for this client's registry.
func (c *Client) decodeRecord(raw json.RawMessage) (*registry.Record, error) {
	rec, err := registry.ParseRecord(raw)
	if err != nil {
		return nil, err
	}
	if registry.NormalizeRegistry(rec.Registry) != c.base {
		return nil, contract.Errorf(errcode.RegistryRecordMismatch, "the record of %s was signed for the registry %s, not %s, the one runx installs from", c.scrub(rec.Ref), c.scrub(rec.Registry), c.base)
	}
	return rec, nil
}
