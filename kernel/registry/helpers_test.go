package registry

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

const testRegistry = "https://reg.example"

// skillFiles is a small valid skill: two described methods, a carried
// connector and a module.
func skillFiles() map[string][]byte {
	return map[string][]byte{
		"SKILL.md": []byte("---\nname: weather\ndescription: Read the weather.\nversion: 1.2.0\n---\n\n# weather\n\nReads the weather.\n"),
		"run.yaml": []byte(`minimum_runx: 0.1.0
methods:
  forecast:
    description: Forecast for one place.
    inputs:
      days: { type: integer, default: 3 }
    steps:
      - id: fetch
        operation: meteo/forecast
        inputs: { days: $input.days }
  today:
    description: Today only.
    steps:
      - id: fetch
        operation: meteo/forecast
        inputs: { days: 1 }
`),
		"connectors/meteo/connector.yaml": []byte(connectorYAML("meteo")),
		"tests/none.txt":                  []byte("x"),
	}
}

func connectorYAML(id string) string {
	return `id: ` + id + `
version: 1.0.0
base_url: https://api.example.com
operations:
  forecast:
    summary: Read a forecast.
    verb: read
    target: forecast/{days}
    request:
      method: GET
      path: /v1/forecast
      query:
        days: $input.days
    inputs:
      days: { type: integer, required: true }
`
}

// writeTree writes files under a new temp directory and returns it.
func writeTree(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg")
	if err := writeFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	return dir
}

// wantCode fails unless err carries code.
func wantCode(t testing.TB, err error, code errcode.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s", code)
	}
	if got := contract.CodeOf(err); got != code {
		t.Fatalf("code %s (%v); want %s", got, err, code)
	}
}

type signer struct {
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
}

func newSigner(t testing.TB) signer {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signer{pub, priv}
}

// trustFor is a trust store holding s's key on testRegistry for namespaces.
func (s signer) trustFor(t testing.TB, namespaces ...string) *Trust {
	t.Helper()
	tr := &Trust{}
	if err := tr.Add(testRegistry, FormatPublicKey(s.pub), namespaces...); err != nil {
		t.Fatal(err)
	}
	return tr
}

// publish builds files as kind and returns the record s signs for publisher
// and the package's files with runx.package.json.
func (s signer) publish(t testing.TB, kind Kind, publisher string, files map[string][]byte) (*Record, map[string][]byte) {
	t.Helper()
	p, err := BuildFiles(kind, files)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecord(p, testRegistry+"/", publisher, TierCommunity, time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	if err := Sign(rec, s.priv); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for k, v := range files {
		out[k] = v
	}
	m, err := p.manifest()
	if err != nil {
		t.Fatal(err)
	}
	out[ManifestFile] = m
	return rec, out
}

// entries lists every path under dir, for "nothing was written" checks.
func entries(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fileOf(p string, b []byte) File {
	return File{Path: p, Digest: canon.DigestBytes(b), Size: int64(len(b))}
}
