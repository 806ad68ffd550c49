package datasource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
)

func resolver(t *testing.T, doc string, env map[string]string) *Resolver {
	t.Helper()
	ws := t.TempDir()
	project := filepath.Join(ws, ".runx")
	os.MkdirAll(project, 0o755)
	if doc != "" {
		os.WriteFile(filepath.Join(project, FileName), []byte(doc), 0o644)
	}
	return &Resolver{ProjectDir: project, Workspace: ws, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
}

func TestUnboundLocalRefsGetTheirOwnSQLite(t *testing.T) {
	r := resolver(t, "", nil)
	a, err := r.Resolve("local://runx-data-store/dev-board")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Resolve("local://runx-data-store/other")
	if a.Adapter != AdapterSQLite || !a.Default || a.DatabasePath == b.DatabasePath || !strings.HasPrefix(a.DatabasePath, filepath.Join(r.ProjectDir, "data", "local-sources")) {
		t.Fatalf("got %+v and %+v", a, b)
	}
}

func TestBindings(t *testing.T) {
	doc := `{"data_sources":{
	  "tenant://acme/board":{"adapter":"data.postgres","endpoint":"postgres://runx@127.0.0.1:5432/board","profile":"prod","resources":{"board_events":{"kind":"event_stream","partition_key":"aggregate_id"}}},
	  "tenant://acme/cache":{"adapter":"data.redis","endpoint":"redis://127.0.0.1:6379/0","key_prefix":"runx:acme"},
	  "tenant://acme/file":{"adapter":"data.sqlite","database_path":".runx/data/x.sqlite"}}}`
	r := resolver(t, doc, map[string]string{"RUNX_DATA_PROFILE_PROD_PASSWORD": "s3cret"})
	pg, err := r.Resolve("tenant://acme/board")
	if err != nil || pg.Adapter != AdapterPostgres || pg.Resources["board_events"].PartitionKey != "aggregate_id" {
		t.Fatalf("%+v %v", pg, err)
	}
	creds, err := r.Credentials(pg, t.TempDir())
	if err != nil || creds["password"] != "s3cret" {
		t.Fatalf("credentials: %v %v", creds, err)
	}
	if f, _ := r.Resolve("tenant://acme/file"); !filepath.IsAbs(f.DatabasePath) {
		t.Fatalf("relative database_path not resolved: %s", f.DatabasePath)
	}
}

func TestOneRunOverride(t *testing.T) {
	r := resolver(t, `{"data_sources":{"tenant://x/y":{"adapter":"data.sqlite","database_path":"a.sqlite"}}}`, nil)
	override := filepath.Join(r.Workspace, "override.json")
	os.WriteFile(override, []byte(`{"data_sources":{"tenant://x/y":{"adapter":"data.redis","endpoint":"redis://127.0.0.1:1/0"}}}`), 0o644)
	r.LookupEnv = func(k string) (string, bool) {
		if k == "RUNX_DATA_SOURCES" {
			return "override.json", true
		}
		return "", false
	}
	b, err := r.Resolve("tenant://x/y")
	if err != nil || b.Adapter != AdapterRedis {
		t.Fatalf("%+v %v", b, err)
	}
}

func TestRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		doc, ref, code string
	}{
		"raw password field":   {`{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","endpoint":"postgres://h/db","password":"x"}}}`, "tenant://a/b", "binding_secret_refused"},
		"password in endpoint": {`{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","endpoint":"postgres://u:pw@h/db"}}}`, "tenant://a/b", "binding_secret_refused"},
		"password in query":    {`{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","endpoint":"postgres://u@h/db?password=pw"}}}`, "tenant://a/b", "binding_secret_refused"},
		"unknown adapter":      {`{"data_sources":{"tenant://a/b":{"adapter":"data.mongo","endpoint":"x"}}}`, "tenant://a/b", "data_sources_invalid"},
		"unknown field":        {`{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"x","colour":"red"}}}`, "tenant://a/b", "data_sources_invalid"},
		"sqlite without path":  {`{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite"}}}`, "tenant://a/b", "data_sources_invalid"},
		"unbound tenant":       {``, "tenant://a/b", "data_source_unbound"},
		"not a ref":            {``, "mysql://x", "data_source_ref_invalid"},
		"traversal":            {``, "local://../../etc", "data_source_ref_invalid"},
		"not a document":       {`{"sources":{}}`, "tenant://a/b", "data_sources_invalid"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := resolver(t, tc.doc, nil).Resolve(tc.ref)
			if contract.CodeOf(err) != tc.code {
				t.Fatalf("want %s, got %v", tc.code, err)
			}
		})
	}
	r := resolver(t, `{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","endpoint":"postgres://u@h/db","profile":"p"}}}`, nil)
	b, _ := r.Resolve("tenant://a/b")
	if _, err := r.Credentials(b, t.TempDir()); contract.CodeOf(err) != "credential_missing" {
		t.Fatalf("missing credential: %v", err)
	}
}
