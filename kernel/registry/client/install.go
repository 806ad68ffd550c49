package client

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
)

// Installed is what installing one version did, and the newest version a
// ref without a version passed over.
type Installed struct {
	registry.Result
	NewestUnread *NewestUnread `json:"newest_unread,omitempty"`
}

// InstallOptions narrow what an install accepts.
type InstallOptions struct {
	// Digest is the content digest the version must have (--digest).
	Digest string
}

// Install adds ref's package to the project whose state directory is
// projectDir (.runx): a skill under added-skills/<publisher>/<name>/<version>/,
// a connector under added-connectors/<name>/<version>/, with its signed
// record as signature.json. A ref without a version takes the newest
// version whose package format this runx reads. The record must name the
// package asked for and verify under a key trust holds for its registry and
// namespace; the files must be exactly the files it names. Any refusal
// writes nothing.
func (c *Client) Install(ctx context.Context, projectDir string, ref Ref, trust *registry.Trust, o InstallOptions) (*Installed, error) {
	f, err := c.Fetch(ctx, ref, trust, o)
	if err != nil {
		return nil, err
	}
	return f.Install(projectDir)
}

// Fetched is one version read from the registry and checked (the record
// names what was asked and verifies, the files are exactly its files),
// with nothing written yet.
type Fetched struct {
	Record       *registry.Record
	Files        map[string][]byte
	NewestUnread *NewestUnread
	trust        *registry.Trust
}

// Fetch does what Install does before it writes: a command that must not
// touch the project until the package is known good (runx registry
// install makes no .runx for a refused package) fetches, then installs.
func (c *Client) Fetch(ctx context.Context, ref Ref, trust *registry.Trust, o InstallOptions) (*Fetched, error) {
	kind, rec, unread, err := c.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	if o.Digest != "" && rec.ContentDigest != o.Digest {
		return nil, contract.Errorf(errcode.RegistryDigestMismatch, "%s@%s has content digest %s, not the %s --digest names; nothing was installed", ref.Name, rec.Version, c.scrub(rec.ContentDigest), o.Digest)
	}
	// The signature first: a record no trusted key signed costs no
	// download of its files.
	if err := registry.VerifySignature(rec, trust); err != nil {
		return nil, err
	}
	files, err := c.Files(ctx, kind, ref, rec)
	if err != nil {
		return nil, err
	}
	if err := registry.Verify(rec, files, trust); err != nil {
		return nil, err
	}
	return &Fetched{Record: rec, Files: files, NewestUnread: unread, trust: trust}, nil
}

// Install writes the fetched version into the project whose state
// directory is projectDir, through registry.Install (which verifies again).
func (f *Fetched) Install(projectDir string) (*Installed, error) {
	res, err := registry.Install(projectDir, f.Record, f.Files, f.trust)
	if err != nil {
		return nil, err
	}
	return &Installed{Result: res, NewestUnread: f.NewestUnread}, nil
}

// InstallRef parses ref and installs it; see Install.
func (c *Client) InstallRef(ctx context.Context, projectDir, ref string, trust *registry.Trust, o InstallOptions) (*Installed, error) {
	r, err := ParseRef(ref)
	if err != nil {
		return nil, err
	}
	return c.Install(ctx, projectDir, r, trust, o)
}

// resolve finds ref's kind (a skill first, when the ref could name either)
// and the signed record of its version: the one it names, else the newest
// whose package format this runx reads.
func (c *Client) resolve(ctx context.Context, ref Ref) (string, *registry.Record, *NewestUnread, error) {
	kinds := []string{ref.Kind}
	if ref.Kind == "" {
		kinds = []string{KindSkill, KindConnector}
	}
	var first error
	for i, k := range kinds {
		rec, unread, err := c.resolveKind(ctx, k, ref)
		if err == nil {
			return k, rec, unread, nil
		}
		if !notFound(err) {
			return "", nil, nil, err
		}
		if first == nil {
			// Neither a skill nor a connector is said as a skill.
			first = err
		}
		if i+1 == len(kinds) {
			return "", nil, nil, first
		}
	}
	return "", nil, nil, first
}

func (c *Client) resolveKind(ctx context.Context, kind string, ref Ref) (*registry.Record, *NewestUnread, error) {
	if ref.Version != "" {
		rec, err := c.Record(ctx, kind, ref, ref.Version)
		return rec, nil, err
	}
	vs, err := c.Versions(ctx, kind, ref)
	if err != nil {
		return nil, nil, err
	}
	v, unread, err := ChooseNewest(ref.Name, vs.Versions, registry.PackageFormat)
	if err != nil {
		return nil, nil, err
	}
	rec, err := c.Record(ctx, kind, ref, v.Version)
	return rec, unread, err
}

// notFound says err is the registry answering that it holds no such
// package.
func notFound(err error) bool {
	var he *httpError
	return errors.As(err, &he) && he.status == 404
}

// InstallRecords installs the signed skill records a host holds (runx
// registry install --records): each record's files come from the registry,
// and must be exactly what the record names. Every record is verified
// before any is installed, so one that does not verify installs nothing.
func (c *Client) InstallRecords(ctx context.Context, projectDir string, raws []json.RawMessage, trust *registry.Trust) ([]*Installed, error) {
	all, err := c.FetchRecords(ctx, raws, trust)
	if err != nil {
		return nil, err
	}
	out := make([]*Installed, 0, len(all))
	for _, f := range all {
		in, err := f.Install(projectDir)
		if err != nil {
			return out, err
		}
		out = append(out, in)
	}
	return out, nil
}

// FetchRecords fetches and checks the files of every record, writing
// nothing; see InstallRecords.
func (c *Client) FetchRecords(ctx context.Context, raws []json.RawMessage, trust *registry.Trust) ([]*Fetched, error) {
	all := make([]*Fetched, 0, len(raws))
	for i, raw := range raws {
		rec, err := c.decodeRecord(raw)
		if err != nil {
			return nil, err
		}
		if rec.Kind != registry.KindSkill {
			return nil, contract.Errorf(errcode.RegistryRecordInvalid, "record %d is a %s record; a host's records are skill records (the connectors a skill binds travel in its files)", i+1, c.scrub(string(rec.Kind)))
		}
		ref := Ref{Kind: KindSkill, Name: rec.Publisher + "/" + rec.Name, Version: rec.Version}
		if _, err := ParseRef(ref.String()); err != nil {
			return nil, contract.Errorf(errcode.RegistryRecordInvalid, "record %d names %q, which is not a skill ref", i+1, c.scrub(ref.String()))
		}
		if err := registry.VerifySignature(rec, trust); err != nil {
			return nil, err
		}
		files, err := c.Files(ctx, KindSkill, ref, rec)
		if err != nil {
			return nil, err
		}
		if err := registry.Verify(rec, files, trust); err != nil {
			return nil, err
		}
		all = append(all, &Fetched{Record: rec, Files: files, trust: trust})
	}
	return all, nil
}
