package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/runxhq/runx/sdk/errcode"
)

// Search limits: a page is at most maxSearchLimit results, and the query
// text at most maxQueryBytes (only its first words are searched).
const (
	defaultSearchLimit = 20
	maxSearchLimit     = 100
	maxQueryBytes      = 1024
)

type keyDoc struct {
	KeyID     string `json:"key_id"`
	Alg       string `json:"alg"`
	PublicKey string `json:"public_key"`
}

func (s *Server) keys(w http.ResponseWriter, r *http.Request) {
	pub := s.PublicKey()
	writeJSON(w, http.StatusOK, map[string]any{"keys": []keyDoc{{
		KeyID: registry.KeyID(pub), Alg: registry.AlgEd25519,
		PublicKey: strings.TrimPrefix(registry.FormatPublicKey(pub), registry.AlgEd25519+":"),
	}}})
}

type searchResult struct {
	Kind        string          `json:"kind"`
	Ref         string          `json:"ref"`
	Publisher   string          `json:"publisher"`
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Methods     json.RawMessage `json:"methods"`
	TrustTier   store.Tier      `json:"trust_tier"`
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k := range q {
		if k != "q" && k != "limit" {
			s.fail(w, r, refuse(http.StatusBadRequest, errcode.RegistryRequestInvalid, "search takes q and limit, not %q", k))
			return
		}
	}
	limit := defaultSearchLimit
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxSearchLimit {
			s.fail(w, r, refuse(http.StatusBadRequest, errcode.RegistryRequestInvalid, "limit %q is not a number from 1 to %d", l, maxSearchLimit))
			return
		}
		limit = n
	}
	text := q.Get("q")
	if len(text) > maxQueryBytes {
		s.fail(w, r, refuse(http.StatusBadRequest, errcode.RegistryRequestInvalid, "the query is over %d bytes", maxQueryBytes))
		return
	}
	hits, err := s.store.Search(r.Context(), store.SearchWords(text), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	results := make([]searchResult, len(hits))
	for i, h := range hits {
		results[i] = searchResult{
			Kind: h.Kind, Ref: registry.RefOf(registry.Kind(h.Kind), h.Publisher, h.Name, h.Version),
			Publisher: h.Publisher, Name: h.Name, Version: h.Version, Description: h.Description,
			Methods: h.Methods, TrustTier: h.Tier,
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": results})
}

type versionDoc struct {
	Version       string `json:"version"`
	ContentDigest string `json:"content_digest"`
	PackageFormat int    `json:"package_format"`
	PublishedAt   string `json:"published_at"`
}

type packageDoc struct {
	Kind      string       `json:"kind"`
	Publisher string       `json:"publisher"`
	Name      string       `json:"name"`
	TrustTier store.Tier   `json:"trust_tier"`
	Versions  []versionDoc `json:"versions"`
}

func (s *Server) skill(w http.ResponseWriter, r *http.Request) {
	s.versions(w, r, store.KindSkill, r.PathValue("publisher"), r.PathValue("name"))
}

func (s *Server) skillVersion(w http.ResponseWriter, r *http.Request) {
	pub, name := r.PathValue("publisher"), r.PathValue("name")
	s.version(w, r, store.KindSkill, pub+"/"+name, r.PathValue("version"), r.PathValue("part"))
}

// connector serves /v1/connectors/{name} and its versions, where the name
// holds at most one "/": {ns}/{name}[/versions/{version}/record|files].
func (s *Server) connector(w http.ResponseWriter, r *http.Request) {
	segs := strings.Split(r.PathValue("path"), "/")
	n := len(segs)
	switch {
	case n >= 4 && n <= 5 && segs[n-3] == "versions":
		name := strings.Join(segs[:n-3], "/")
		s.version(w, r, store.KindConnector, name, segs[n-2], segs[n-1])
	case n >= 1 && n <= 2 && segs[n-1] != "":
		s.versions(w, r, store.KindConnector, segs[0], strings.Join(segs, "/"))
	default:
		s.fail(w, r, refuse(http.StatusNotFound, errcode.RegistryNotFound, "%s is not an endpoint of this registry", r.URL.Path))
	}
}

// versions answers a package's version list, newest first. A skill is
// named by publisher and name; a connector by its whole name, whose
// namespace is its publisher.
func (s *Server) versions(w http.ResponseWriter, r *http.Request, kind, publisher, name string) {
	key := name
	if kind == store.KindSkill {
		key = publisher + "/" + name
	}
	vs, err := s.store.Versions(r.Context(), kind, key)
	if errors.Is(err, store.ErrNotFound) {
		err = refuse(http.StatusNotFound, errcode.RegistryNotFound, "this registry holds no %s %s", kind, key)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	tier, err := s.store.Tier(r.Context(), publisher)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	doc := packageDoc{Kind: kind, Publisher: publisher, Name: name, TrustTier: tier, Versions: make([]versionDoc, len(vs))}
	for i, v := range vs {
		doc.Versions[i] = versionDoc{Version: v.Version, ContentDigest: v.ContentDigest, PackageFormat: v.PackageFormat,
			PublishedAt: v.PublishedAt.UTC().Format(time.RFC3339)}
	}
	writeJSON(w, http.StatusOK, doc)
}

type fileDoc struct {
	Path string `json:"path"`
	Data []byte `json:"data"` // standard base64 in JSON
}

// version answers a version's signed record or its files.
func (s *Server) version(w http.ResponseWriter, r *http.Request, kind, key, version, part string) {
	notFound := refuse(http.StatusNotFound, errcode.RegistryNotFound, "this registry holds no %s %s@%s", kind, key, version)
	switch part {
	case "record":
		rec, err := s.store.Record(r.Context(), kind, key, version)
		if errors.Is(err, store.ErrNotFound) {
			err = notFound
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, json.RawMessage(rec))
	case "files":
		files, err := s.store.Files(r.Context(), kind, key, version)
		if errors.Is(err, store.ErrNotFound) {
			err = notFound
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeFiles(w, files)
	default:
		s.fail(w, r, refuse(http.StatusNotFound, errcode.RegistryNotFound, "%s is not an endpoint of this registry", r.URL.Path))
	}
}

// writeFiles streams {"files":[{"path","data"}]} one file at a time, so a
// 64 MiB package is never held a second time as one encoded document.
func writeFiles(w http.ResponseWriter, files []store.File) {
	setJSONHeaders(w)
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, `{"files":[`)
	for i, f := range files {
		doc, err := json.Marshal(fileDoc{Path: f.Path, Data: f.Data})
		if err != nil {
			return // the client sees a truncated document, never a wrong one
		}
		if i > 0 {
			_, _ = io.WriteString(w, ",")
		}
		if _, err := w.Write(doc); err != nil {
			return
		}
	}
	_, _ = io.WriteString(w, "]}\n")
}
