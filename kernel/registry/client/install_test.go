package client

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
)

func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s", code)
	}
	if got := contract.CodeOf(err); got != code {
		t.Fatalf("code %s (%v); want %s", got, err, code)
	}
}

func TestInstallThenUnchanged(t *testing.T) {
	r := newTestRegistry(t)
	r.publish("acme", skillFiles("weather", "1.0.0", 3), 1)
	project := t.TempDir()
	c := r.client(Options{})
	in, err := c.InstallRef(context.Background(), project, "acme/weather", r.trust("acme"), InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(project, "added-skills", "acme", "weather", "1.0.0")
	if in.Status != registry.StatusInstalled || in.Dir != want || in.Version != "1.0.0" || in.NewestUnread != nil {
		t.Fatalf("installed %+v", in)
	}
	if _, err := registry.VerifyInstalled(want, r.trust("acme")); err != nil {
		t.Fatalf("the installed copy does not verify: %v", err)
	}
	again, err := c.InstallRef(context.Background(), project, "acme/weather@1.0.0", r.trust("acme"), InstallOptions{Digest: in.ContentDigest})
	if err != nil || again.Status != registry.StatusUnchanged {
		t.Fatalf("second install: %+v, %v", again, err)
	}
}

// A ref without a version takes the newest version this runx reads, and
// names a newer one it passed over.
func TestInstallNewestUnread(t *testing.T) {
	r := newTestRegistry(t)
	r.publish("acme", skillFiles("weather", "1.2.0", 0), 1)
	r.publish("acme", skillFiles("weather", "1.10.0", 0), registry.PackageFormat+1)
	r.publish("acme", skillFiles("weather", "1.9.0", 0), 1)
	in, err := r.client(Options{}).InstallRef(context.Background(), t.TempDir(), "acme/weather", r.trust("acme"), InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if in.Version != "1.9.0" || in.NewestUnread == nil || in.NewestUnread.Version != "1.10.0" || !strings.Contains(in.NewestUnread.Reason, "package format 2") {
		t.Fatalf("installed %s, newest_unread %+v; want 1.9.0 passing over 1.10.0", in.Version, in.NewestUnread)
	}
}

func TestInstallRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ref     string
		trust   []string
		digest  string
		rewrite func(r *testRegistry, path string, body []byte) []byte
		code    errcode.Code
	}{
		{name: "a key trusted for another namespace", ref: "acme/weather", trust: []string{"other"}, code: errcode.RegistryKeyUntrusted},
		{name: "no trusted key", ref: "acme/weather", code: errcode.RegistryKeyUntrusted},
		{name: "digest differs", ref: "acme/weather", trust: []string{"acme"}, digest: "sha256:" + strings.Repeat("0", 64), code: errcode.RegistryDigestMismatch},
		{name: "no such version", ref: "acme/weather@9.9.9", trust: []string{"acme"}, code: errcode.RegistryVersionNotFound},
		{name: "no such skill", ref: "acme/nosuch", trust: []string{"acme"}, code: errcode.Code("registry_package_not_found")},
		{name: "a file escaping the install directory", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistryPathInvalid,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/files") {
					return body
				}
				return []byte(`{"files":[{"path":"../../../escaped.md","data":"aGk="}]}`)
			}},
		{name: "an absolute path", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistryPathInvalid,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/files") {
					return body
				}
				return []byte(`{"files":[{"path":"/tmp/escaped.md","data":"aGk="}]}`)
			}},
		{name: "a record naming other bytes than the files sent", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistryPackageAltered,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/files") {
					return body
				}
				var doc struct {
					Files []wireFile `json:"files"`
				}
				if err := json.Unmarshal(body, &doc); err != nil {
					panic(err)
				}
				for i := range doc.Files {
					if doc.Files[i].Path == "SKILL.md" {
						doc.Files[i].Data = bytes.Replace(doc.Files[i].Data, []byte("weather."), []byte("weather!"), 1)
					}
				}
				out, _ := json.Marshal(doc)
				return out
			}},
		{name: "a file the record does not name", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistryPackageAltered,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/files") {
					return body
				}
				return bytes.Replace(body, []byte(`{"files":[`), []byte(`{"files":[{"path":"extra.sh","data":"aGk="},`), 1)
			}},
		{name: "a record of another skill", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistryRecordMismatch,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/record") {
					return body
				}
				return r.records["acme/other@1.0.0"]
			}},
		{name: "a record edited after signing", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistrySignatureInvalid,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/record") {
					return body
				}
				return bytes.Replace(body, []byte(`"description":"Tell`), []byte(`"description":"Sell`), 1)
			}},
		{name: "an oversized record", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistryResponseTooLarge,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/record") {
					return body
				}
				return append(body, bytes.Repeat([]byte(" "), int(RecordLimit))...)
			}},
		{name: "oversized files", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistryResponseTooLarge,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/files") {
					return body
				}
				return append(body, bytes.Repeat([]byte(" "), 64<<10)...)
			}},
		{name: "an answer that is not JSON", ref: "acme/weather", trust: []string{"acme"}, code: errcode.RegistryResponseInvalid,
			rewrite: func(r *testRegistry, path string, body []byte) []byte {
				if !strings.HasSuffix(path, "/files") {
					return body
				}
				return []byte("<html>")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRegistry(t)
			r.publish("acme", skillFiles("weather", "1.0.0", 2), 1)
			r.publish("acme", skillFiles("other", "1.0.0", 0), 1)
			if tc.rewrite != nil {
				r.rewrite = func(path string, body []byte) []byte { return tc.rewrite(r, path, body) }
			}
			project := t.TempDir()
			c := r.client(Options{})
			c.filesLimit = 32 << 10 // the oversized files case sends 64 KiB more
			trust := &registry.Trust{}
			if tc.trust != nil {
				trust = r.trust(tc.trust...)
			}
			_, err := c.InstallRef(context.Background(), project, tc.ref, trust, InstallOptions{Digest: tc.digest})
			wantCode(t, err, tc.code)
			emptyTree(t, project)
			if _, err := os.Stat(filepath.Join(filepath.Dir(project), "escaped.md")); err == nil {
				t.Fatal("a file escaped the project")
			}
		})
	}
}

// An untrusted record costs no download of its files.
func TestInstallVerifiesBeforeFetchingFiles(t *testing.T) {
	r := newTestRegistry(t)
	r.publish("acme", skillFiles("weather", "1.0.0", 0), 1)
	_, err := r.client(Options{}).InstallRef(context.Background(), t.TempDir(), "acme/weather", r.trust("other"), InstallOptions{})
	wantCode(t, err, errcode.RegistryKeyUntrusted)
	if n := r.hits["/v1/skills/acme/weather/versions/1.0.0/files"]; n != 0 {
		t.Fatalf("fetched the files of an untrusted record %d times", n)
	}
}

func TestInstallRecords(t *testing.T) {
	r := newTestRegistry(t)
	r.publish("acme", skillFiles("weather", "1.0.0", 1), 1)
	r.publish("acme", skillFiles("other", "2.0.0", 1), 1)
	doc := []json.RawMessage{r.records["acme/weather@1.0.0"], r.records["acme/other@2.0.0"]}
	project := t.TempDir()
	c := r.client(Options{})
	done, err := c.InstallRecords(context.Background(), project, doc, r.trust("acme"))
	if err != nil || len(done) != 2 || done[1].Dir != filepath.Join(project, "added-skills", "acme", "other", "2.0.0") {
		t.Fatalf("installed %v, %v", done, err)
	}

	// One record that does not verify installs none of them.
	edited := bytes.Replace(r.records["acme/other@2.0.0"], []byte(`"description":"Tell`), []byte(`"description":"Sell`), 1)
	fresh := t.TempDir()
	_, err = c.InstallRecords(context.Background(), fresh, []json.RawMessage{r.records["acme/weather@1.0.0"], edited}, r.trust("acme"))
	wantCode(t, err, errcode.RegistrySignatureInvalid)
	emptyTree(t, fresh)
}

// A host's records must be skill records signed for the registry the
// client installs from.
func TestInstallRecordsRefusals(t *testing.T) {
	r := newTestRegistry(t)
	r.publish("acme", skillFiles("weather", "1.0.0", 0), 1)
	other := newTestRegistry(t)
	other.publish("acme", skillFiles("weather", "1.0.0", 0), 1)
	c := r.client(Options{})
	for _, tc := range []struct {
		name string
		raw  json.RawMessage
		code errcode.Code
	}{
		{name: "a record signed for another registry", raw: other.records["acme/weather@1.0.0"], code: errcode.RegistryRecordMismatch},
		{name: "a connector record", raw: bytes.Replace(r.records["acme/weather@1.0.0"], []byte(`"kind":"skill"`), []byte(`"kind":"connector"`), 1), code: errcode.RegistryRecordInvalid},
		{name: "not a record", raw: json.RawMessage(`{"schema":"x","extra":1}`), code: errcode.RegistryRecordInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := t.TempDir()
			_, err := c.InstallRecords(context.Background(), project, []json.RawMessage{tc.raw}, r.trust("acme"))
			wantCode(t, err, tc.code)
			emptyTree(t, project)
		})
	}
}
