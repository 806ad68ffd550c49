package registrycmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

func errorCode(t *testing.T, out []byte) errcode.Code {
	t.Helper()
	var doc struct {
		Error struct{ Code errcode.Code } `json:"error"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not one JSON document: %s", out)
	}
	return doc.Error.Code
}

// A token owning several namespaces publishes nothing until one is named;
// the token never appears in what runx prints.
func TestPublishPublisherAmbiguous(t *testing.T) {
	published := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/whoami":
			_, _ = w.Write([]byte(`{"namespaces":["acme","acme-labs"]}`))
		default:
			published = true
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("RUNX_HOME", filepath.Join(dir, ".home"))
	t.Setenv("RUNX_CWD", dir)
	t.Setenv("RUNX_REGISTRY_TOKEN", "runxreg_secret")
	skill := filepath.Join(dir, "weather")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: weather\nversion: 1.0.0\ndescription: Tell the weather.\n---\n\nSay it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &bytes.Buffer{}
	f := &cli.Factory{IO: &cli.IO{Out: out, Err: &bytes.Buffer{}}}
	code := Publish(context.Background(), &PublishOptions{Factory: f, Dir: "weather", Registry: srv.URL, JSON: true})
	if code == cli.ExitOK || errorCode(t, out.Bytes()) != errcode.RegistryPublisherAmbiguous || published {
		t.Fatalf("exit %d, published %v: %s", code, published, out)
	}
	if strings.Contains(out.String(), "runxreg_secret") {
		t.Fatalf("the token was printed: %s", out)
	}
}

// --records is one non-empty JSON array of records.
func TestReadRecordsRefusals(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("RUNX_HOME", filepath.Join(dir, ".home"))
	t.Setenv("RUNX_CWD", dir)
	for _, doc := range []string{`{"schema":"runx.registry.record.v1"}`, `[]`, `not json`} {
		f := &cli.Factory{IO: &cli.IO{In: strings.NewReader(doc), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}}
		out := f.IO.Out.(*bytes.Buffer)
		code := Install(context.Background(), &InstallOptions{Factory: f, Records: "-", Registry: "http://127.0.0.1:1", JSON: true})
		if code == cli.ExitOK || errorCode(t, out.Bytes()) != errcode.RegistryRecordInvalid {
			t.Fatalf("%s: exit %d: %s", doc, code, out)
		}
		if _, err := os.Stat(filepath.Join(dir, ".runx")); err == nil {
			t.Fatalf("%s: a refused --records made a project", doc)
		}
	}
}

// runx login reads one token line from a pipe, bounded.
func TestReadTokenRefusals(t *testing.T) {
	for in, code := range map[string]errcode.Code{
		"":                                   errcode.RegistryTokenMissing,
		"\n":                                 errcode.RegistryTokenMissing,
		"two words":                          errcode.RegistryTokenMissing,
		"a\nb":                               errcode.RegistryTokenMissing,
		strings.Repeat("x", maxTokenBytes+1): errcode.SecretTooLarge,
	} {
		_, err := readToken(strings.NewReader(in))
		if got := contract.CodeOf(err); got != code {
			t.Errorf("%.20q: %v; want %s", in, err, code)
		}
	}
	if tok, err := readToken(strings.NewReader("runxreg_abc\n")); err != nil || tok != "runxreg_abc" {
		t.Fatalf("%q %v", tok, err)
	}
}
