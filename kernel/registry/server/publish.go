package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/runxhq/runx/sdk/errcode"
)

// MaxPublishBody bounds a publish request: the largest package
// (registry.MaxPackageBytes) in standard base64, plus the JSON around each
// of at most registry.MaxFiles+1 files with a path of up to maxPathAllowance
// bytes, plus the envelope.
const MaxPublishBody = 4*((registry.MaxPackageBytes+2)/3) + (registry.MaxFiles+1)*(maxPathAllowance+32) + 4096

const maxPathAllowance = 1024

type publishRequest struct {
	Kind      registry.Kind `json:"kind"`
	Publisher string        `json:"publisher"`
	Files     []publishFile `json:"files"`
}

// publishFile is one file of a publish: its bytes, and whether its
// executable bit is set (the package records that bit and no other).
type publishFile struct {
	Path       string `json:"path"`
	Data       []byte `json:"data"` // standard base64 in JSON
	Executable bool   `json:"executable,omitempty"`
}

type publishAnswer struct {
	Ref           string          `json:"ref"`
	Version       string          `json:"version"`
	ContentDigest string          `json:"content_digest"`
	Record        json.RawMessage `json:"record"`
}

// publish reads a package natively and publishes it: the token first (so
// an anonymous caller costs no decoding), then the body under its bound,
// the namespace, the package rules, the version's immutability.
func (s *Server) publish(w http.ResponseWriter, r *http.Request) {
	owned, err := s.authenticate(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	select {
	case s.publishes <- struct{}{}:
		defer func() { <-s.publishes }()
	case <-r.Context().Done():
		return
	}
	req, err := decodePublish(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ans, err := s.publishPackage(r, owned, req)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, ans)
}

func decodePublish(w http.ResponseWriter, r *http.Request) (*publishRequest, error) {
	if r.ContentLength > MaxPublishBody {
		return nil, tooLarge()
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxPublishBody))
	dec.DisallowUnknownFields()
	var req publishRequest
	err := dec.Decode(&req)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, tooLarge()
	}
	if err == nil {
		_, err = dec.Token()
		if errors.Is(err, io.EOF) {
			err = nil
		} else if err == nil {
			err = errors.New("data after the JSON object")
		}
	}
	if err != nil {
		return nil, refuse(http.StatusBadRequest, errcode.RegistryRequestInvalid,
			`a publish body is one JSON object {"kind","publisher","files":[{"path","data","executable"}]}: %v`, err)
	}
	return &req, nil
}

func tooLarge() error {
	return refuse(http.StatusRequestEntityTooLarge, errcode.RegistryRequestTooLarge,
		"the publish body is over %d bytes (a %d-byte package in base64 and its paths)", MaxPublishBody, registry.MaxPackageBytes)
}

func (s *Server) publishPackage(r *http.Request, owned []string, req *publishRequest) (*publishAnswer, error) {
	ctx := r.Context()
	if req.Kind != registry.KindSkill && req.Kind != registry.KindConnector {
		return nil, refuse(http.StatusBadRequest, errcode.RegistryRequestInvalid, "kind %q is neither skill nor connector", req.Kind)
	}
	if req.Publisher == "" && len(owned) == 1 {
		req.Publisher = owned[0] // the one namespace the token owns
	}
	if err := store.CheckNamespace(req.Publisher); err != nil {
		return nil, err
	}
	if !slices.Contains(owned, req.Publisher) {
		return nil, refuse(http.StatusForbidden, errcode.RegistryNamespaceNotOwned,
			"this token does not own namespace %s (it owns %s)", req.Publisher, strings.Join(owned, ", "))
	}
	files := make(map[string][]byte, len(req.Files))
	var executable []string
	for _, f := range req.Files {
		if _, dup := files[f.Path]; dup {
			return nil, refuse(http.StatusBadRequest, errcode.RegistryRequestInvalid, "the publish gives %s twice", f.Path)
		}
		files[f.Path] = f.Data
		if f.Executable {
			executable = append(executable, f.Path)
		}
	}
	req.Files = nil // the map holds the bytes now
	p, err := registry.BuildFiles(req.Kind, files, executable...)
	if err != nil {
		return nil, err
	}
	if len(p.Excluded) > 0 {
		// What the package rules leave out was sent on purpose or by
		// mistake; either way the signed package would not be what was sent.
		return nil, refuse(http.StatusBadRequest, errcode.RegistryRequestInvalid,
			"the publish holds files no package carries: %s", strings.Join(p.Excluded, ", "))
	}
	if err := p.CheckPublish(); err != nil {
		return nil, err
	}
	if err := checkOwnsName(p, req.Publisher); err != nil {
		return nil, err
	}
	tier, err := s.store.Tier(ctx, req.Publisher)
	if err != nil {
		return nil, err
	}
	at := s.now().UTC().Truncate(1e9)
	rec := registry.NewRecord(p, s.url, req.Publisher, registry.TrustTier(tier), at)
	if err := registry.Sign(rec, s.key); err != nil {
		return nil, err
	}
	raw, err := rec.Marshal()
	if err != nil {
		return nil, err
	}
	methods, err := json.Marshal(p.Methods)
	if err != nil {
		return nil, err
	}
	v := &store.Version{
		Kind: string(p.Kind), Name: p.Name, Publisher: req.Publisher, Version: p.Version,
		ContentDigest: p.ContentDigest, PackageFormat: p.PackageFormat, PublishedAt: at,
		Description: p.Description, Methods: methods, Record: raw,
	}
	for _, f := range p.Files {
		data, ok := files[f.Path]
		switch {
		case !ok && f.Path == registry.ManifestFile:
			if data, err = p.ManifestBytes(); err != nil {
				return nil, err
			}
		case !ok:
			return nil, fmt.Errorf("the package names %s, which the publish did not send", f.Path)
		}
		v.Files = append(v.Files, store.File{Path: f.Path, Data: data})
	}
	err = s.store.Publish(ctx, v)
	if errors.Is(err, store.ErrVersionExists) {
		return nil, refuse(http.StatusConflict, errcode.RegistryVersionExists,
			"%s is already published and a published version never changes; publish a new version", rec.Ref)
	}
	if err != nil {
		return nil, err
	}
	return &publishAnswer{Ref: rec.Ref, Version: rec.Version, ContentDigest: rec.ContentDigest, Record: bytes.TrimSpace(raw)}, nil
}

// checkOwnsName: a connector's whole name sits in its namespace, the part
// before its "/"; a connector named without one is its own namespace, so no
// publisher can take a bare name another namespace would own.
func checkOwnsName(p *registry.Package, publisher string) error {
	if p.Kind != registry.KindConnector {
		return nil
	}
	ns, _, _ := strings.Cut(p.Name, "/")
	if ns != publisher {
		return refuse(http.StatusForbidden, errcode.RegistryNamespaceNotOwned,
			"connector %s sits in namespace %s, not %s: publish it as %s with a token that owns %s", p.Name, ns, publisher, ns, ns)
	}
	return nil
}
