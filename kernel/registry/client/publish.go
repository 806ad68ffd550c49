package client

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
)

// publishAnswerLimit bounds a publish answer: the ref, version, digest and
// the signed record.
const publishAnswerLimit = RecordLimit + 64<<10

// wireFile is a file as the API carries it.
type wireFile struct {
	Path       string `json:"path"`
	Data       []byte `json:"data"` // base64 std on the wire
	Executable bool   `json:"executable,omitempty"`
}

// Published is what a registry answers to a publish, checked against the
// package sent.
type Published struct {
	Ref           string           `json:"ref"`
	Version       string           `json:"version"`
	ContentDigest string           `json:"content_digest"`
	Record        *registry.Record `json:"record"`
}

// Publish sends pkg's files (the bytes pkg was built from) under publisher.
// The answer must name the ref, version and content digest the package
// has, with a record of the same: anything else is
// registry_publish_mismatch, and the caller must not use that version.
func (c *Client) Publish(ctx context.Context, publisher string, pkg *registry.Package, files map[string][]byte) (*Published, error) {
	if c.token == "" {
		return nil, contract.Errorf(errcode.RegistryTokenMissing, "publishing needs a publisher token: export %s or run runx login --for publish --registry %s", EnvToken, c.base)
	}
	body := struct {
		Kind      registry.Kind `json:"kind"`
		Publisher string        `json:"publisher,omitempty"`
		Files     []wireFile    `json:"files"`
	}{Kind: pkg.Kind, Publisher: publisher}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	exec := map[string]bool{}
	for _, p := range pkg.Executables() {
		exec[p] = true
	}
	for _, p := range paths {
		body.Files = append(body.Files, wireFile{Path: p, Data: files[p], Executable: exec[p]})
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	answer, err := c.exchange(ctx, "POST", "/v1/publish", nil, raw, true, publishAnswerLimit)
	if err != nil {
		return nil, err
	}
	var pub Published
	if err := decode(answer, &pub, "/v1/publish"); err != nil {
		return nil, err
	}
	want := ExpectedRef(pkg.Kind, publisher, pkg)
	switch {
	case pub.Ref != want:
		return &pub, contract.Errorf(errcode.RegistryPublishMismatch, "the registry recorded %s; the package is %s", c.scrub(pub.Ref), want)
	case pub.ContentDigest != pkg.ContentDigest:
		return &pub, contract.Errorf(errcode.RegistryPublishMismatch, "the registry recorded content digest %s; the package's is %s", c.scrub(pub.ContentDigest), pkg.ContentDigest)
	case pub.Version != pkg.Version:
		return &pub, contract.Errorf(errcode.RegistryPublishMismatch, "the registry recorded version %s; the package's is %s", c.scrub(pub.Version), pkg.Version)
	case pub.Record == nil || pub.Record.Ref != want || pub.Record.ContentDigest != pkg.ContentDigest:
		return &pub, contract.Errorf(errcode.RegistryPublishMismatch, "the registry's signed record does not name %s with content digest %s", want, pkg.ContentDigest)
	}
	return &pub, nil
}

// ExpectedRef is the ref a registry records for pkg published under
// publisher: publisher/name@version for a skill, name@version for a
// connector (whose name holds its namespace).
func ExpectedRef(kind registry.Kind, publisher string, pkg *registry.Package) string {
	if kind == registry.KindConnector {
		return pkg.Name + "@" + pkg.Version
	}
	return publisher + "/" + pkg.Name + "@" + pkg.Version
}
