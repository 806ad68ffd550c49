package client

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
)

// publishServer reads a publish natively, as a registry does, and answers
// with a signed record; lie edits the answer.
func publishServer(t *testing.T, lie func(*Published)) *httptest.Server {
	_, priv, _ := ed25519.GenerateKey(nil)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(401)
			return
		}
		var body struct {
			Kind      registry.Kind `json:"kind"`
			Publisher string        `json:"publisher"`
			Files     []wireFile    `json:"files"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			w.WriteHeader(400)
			return
		}
		files := map[string][]byte{}
		for _, f := range body.Files {
			files[f.Path] = f.Data
		}
		p, err := registry.BuildFiles(body.Kind, files)
		if err != nil {
			w.WriteHeader(400)
			return
		}
		rec := registry.NewRecord(p, srv.URL, body.Publisher, registry.TierCommunity, time.Now())
		_ = registry.Sign(rec, priv)
		pub := &Published{Ref: rec.Ref, Version: rec.Version, ContentDigest: rec.ContentDigest, Record: rec}
		if lie != nil {
			lie(pub)
		}
		w.WriteHeader(201)
		_ = json.NewEncoder(w).Encode(pub)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPublishChecksWhatWasRecorded(t *testing.T) {
	files := skillFiles("weather", "1.0.0", 1)
	p, err := registry.BuildFiles(registry.KindSkill, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		lie  func(*Published)
		code errcode.Code
	}{
		{name: "honest"},
		{name: "another ref", lie: func(p *Published) { p.Ref = "acme/weather@1.0.1" }, code: errcode.RegistryPublishMismatch},
		{name: "another digest", lie: func(p *Published) { p.ContentDigest = "sha256:" + strings.Repeat("1", 64) }, code: errcode.RegistryPublishMismatch},
		{name: "a record of other bytes", lie: func(p *Published) { p.Record.ContentDigest = "sha256:" + strings.Repeat("1", 64) }, code: errcode.RegistryPublishMismatch},
		{name: "no record", lie: func(p *Published) { p.Record = nil }, code: errcode.RegistryPublishMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := New(publishServer(t, tc.lie).URL, Options{Token: "tok"})
			pub, err := c.Publish(context.Background(), "acme", p, files)
			if tc.code == "" {
				if err != nil || pub.Ref != "acme/weather@1.0.0" || pub.ContentDigest != p.ContentDigest {
					t.Fatalf("%+v %v", pub, err)
				}
				return
			}
			wantCode(t, err, tc.code)
		})
	}
	c, _ := New(publishServer(t, nil).URL, Options{})
	_, err = c.Publish(context.Background(), "acme", p, files)
	wantCode(t, err, errcode.RegistryTokenMissing)
}
