package datasource

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Test adapters, declared as a store plugin declares them: the resolver
// knows only what these declarations say.
const resources = `{"type":"object","additionalProperties":{"type":"object","required":["kind"],"additionalProperties":false,` +
	`"properties":{"kind":{"type":"string","minLength":1},"partition_key":{"type":"string"},` +
	`"secret":{"type":"array","items":{"type":"string"}},"private":{"type":"array","items":{"type":"string"}}}}}`

var testAdapters = map[string]*sdk.Adapter{
	"data.sqlite": {ID: "data.sqlite", BindingSchema: json.RawMessage(`{"type":"object","required":["adapter","database_path"],"additionalProperties":false,"properties":{` +
		`"adapter":{"const":"data.sqlite"},"database_path":{"type":"string","minLength":1},"resources":` + resources + `}}`)},
	"data.postgres": {ID: "data.postgres", Credentials: []string{"password"}, BindingSchema: json.RawMessage(`{"type":"object","required":["adapter"],"additionalProperties":false,` +
		`"anyOf":[{"required":["endpoint"]},{"required":["profile"]}],"properties":{"adapter":{"const":"data.postgres"},` +
		`"endpoint":{"type":"string","pattern":"^postgres(ql)?://"},"profile":{"type":"string","minLength":1},"resources":` + resources + `}}`)},
	"data.redis": {ID: "data.redis", Credentials: []string{"password"}, BindingSchema: json.RawMessage(`{"type":"object","required":["adapter"],"additionalProperties":false,` +
		`"anyOf":[{"required":["endpoint"]},{"required":["profile"]}],"properties":{"adapter":{"const":"data.redis"},` +
		`"endpoint":{"type":"string","pattern":"^rediss?://"},"key_prefix":{"type":"string","minLength":1},"profile":{"type":"string","minLength":1},"resources":` + resources + `}}`)},
}

func resolver(t *testing.T, doc string, env map[string]string) *Resolver {
	t.Helper()
	ws := t.TempDir()
	project := filepath.Join(ws, ".runx")
	os.MkdirAll(project, 0o755)
	if doc != "" {
		os.WriteFile(filepath.Join(project, FileName), []byte(doc), 0o644)
	}
	return &Resolver{
		ProjectDir: project, Workspace: ws,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Adapter: func(_ context.Context, id string) (*sdk.Adapter, error) {
			if a, ok := testAdapters[id]; ok {
				return a, nil
			}
			return nil, os.ErrNotExist
		},
		Known: func() []string { return []string{"data.postgres", "data.redis", "data.sqlite"} },
		Local: LocalStore{Adapter: "data.sqlite", PathParam: "database_path", Ext: ".sqlite"},
	}
}

var bg = context.Background()

func TestUnboundLocalRefsGetTheirOwnStore(t *testing.T) {
	r := resolver(t, "", nil)
	a, err := r.Resolve(bg, "local://runx-data-store/dev-board")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Resolve(bg, "local://runx-data-store/other")
	if a.Adapter != "data.sqlite" || !a.Default || a.Param("database_path") == b.Param("database_path") ||
		!strings.HasPrefix(a.Param("database_path"), filepath.Join(r.ProjectDir, "data", "local-sources")) || !strings.HasSuffix(a.Param("database_path"), ".sqlite") {
		t.Fatalf("got %+v and %+v", a, b)
	}
	ws, err := r.WorkspaceStore(bg)
	if err != nil || ws.Param("database_path") != filepath.Join(r.ProjectDir, "store.sqlite") || ws.Ref != WorkspaceRef {
		t.Fatalf("workspace store: %+v %v", ws, err)
	}
	// A runx that names no local store adapter binds nothing by itself.
	r.Local = LocalStore{}
	if _, err := r.Resolve(bg, "local://x"); contract.CodeOf(err) != "data_source_unbound" {
		t.Fatalf("want data_source_unbound, got %v", err)
	}
}

func TestBindings(t *testing.T) {
	doc := `{"data_sources":{
	  "tenant://acme/board":{"adapter":"data.postgres","endpoint":"postgres://runx@127.0.0.1:5432/board","profile":"prod","resources":{"board_events":{"kind":"event_stream","partition_key":"aggregate_id"}}},
	  "tenant://acme/cache":{"adapter":"data.redis","endpoint":"redis://127.0.0.1:6379/0","key_prefix":"runx:acme"},
	  "tenant://acme/file":{"adapter":"data.sqlite","database_path":".runx/data/x.sqlite"}}}`
	r := resolver(t, doc, map[string]string{"RUNX_DATA_PROFILE_PROD_PASSWORD": "s3cret"})
	pg, err := r.Resolve(bg, "tenant://acme/board")
	if err != nil || pg.Adapter != "data.postgres" || pg.Resources["board_events"].PartitionKey != "aggregate_id" {
		t.Fatalf("%+v %v", pg, err)
	}
	creds, err := r.Credentials(bg, pg, t.TempDir())
	if err != nil || creds["password"] != "s3cret" {
		t.Fatalf("credentials: %v %v", creds, err)
	}
	raw, _ := json.Marshal(pg)
	if strings.Contains(string(raw), "s3cret") || !strings.Contains(string(raw), `"endpoint":"postgres://runx@127.0.0.1:5432/board"`) || !strings.Contains(string(raw), `"ref":"tenant://acme/board"`) {
		t.Fatalf("the binding a plugin reads: %s", raw)
	}
	if f, _ := r.Resolve(bg, "tenant://acme/file"); f.Param("database_path") != ".runx/data/x.sqlite" {
		t.Fatalf("a parameter is passed as the operator wrote it: %+v", f)
	}
}

// The spec's own binding examples (governed-data-plane.md) load verbatim,
// among them a profile without an endpoint.
func TestSpecBindingExamplesLoadVerbatim(t *testing.T) {
	for ref, doc := range map[string]string{
		"tenant://acme/board": `{
  "data_sources": {
    "tenant://acme/board": {
      "adapter": "data.postgres",
      "profile": "prod-board",
      "resources": {
        "board_events": {
          "kind": "event_stream",
          "partition_key": "aggregate_id"
        }
      }
    }
  }
}`,
		"tenant://dogfood/sqlite/inbox-1": `{
  "data_sources": {
    "tenant://dogfood/sqlite/inbox-1": {
      "adapter": "data.sqlite",
      "database_path": ".runx/data/inbox-1.sqlite",
      "resources": {
        "operator_inbox_scans": {
          "kind": "event_stream",
          "partition_key": "aggregate_id"
        },
        "operator_inbox_actions": {
          "kind": "event_stream",
          "partition_key": "aggregate_id"
        }
      }
    }
  }
}`,
		"tenant://dogfood/redis/inbox-1": `{
  "data_sources": {
    "tenant://dogfood/redis/inbox-1": {
      "adapter": "data.redis",
      "endpoint": "redis://127.0.0.1:6379/0",
      "key_prefix": "runx:dogfood:inbox-1",
      "resources": {
        "operator_inbox_scans": {
          "kind": "event_stream",
          "partition_key": "aggregate_id"
        },
        "operator_inbox_actions": {
          "kind": "event_stream",
          "partition_key": "aggregate_id"
        }
      }
    }
  }
}`,
	} {
		b, err := resolver(t, doc, nil).Resolve(bg, ref)
		if err != nil || b.Ref != ref || len(b.Resources) == 0 {
			t.Errorf("%s: %+v %v", ref, b, err)
		}
	}
}

// A resource's secret and private fields reach the plugin that redacts
// them, exactly as declared.
func TestResourceRedactionFieldsAreCarried(t *testing.T) {
	r := resolver(t, `{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"a.sqlite","resources":{"people":{"kind":"event_stream","secret":["/payload/ssn"],"private":["/payload/email","/payload/phone"]}}}}}`, nil)
	b, err := r.Resolve(bg, "tenant://a/b")
	if err != nil {
		t.Fatal(err)
	}
	people := b.Resources["people"]
	if len(people.Secret) != 1 || people.Secret[0] != "/payload/ssn" || len(people.Private) != 2 {
		t.Fatalf("got %+v", people)
	}
	raw, _ := json.Marshal(b)
	if !strings.Contains(string(raw), `"secret":["/payload/ssn"]`) || !strings.Contains(string(raw), `"private":["/payload/email","/payload/phone"]`) {
		t.Fatalf("the binding a plugin reads lost its redaction fields: %s", raw)
	}
	bad := resolver(t, `{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"a.sqlite","resources":{"people":{"kind":"event_stream","secret":"/payload/ssn"}}}}}`, nil)
	if _, err := bad.Resolve(bg, "tenant://a/b"); contract.CodeOf(err) != "data_sources_invalid" {
		t.Fatalf("a secret field list that is not a list: %v", err)
	}
}

func TestOneRunOverride(t *testing.T) {
	r := resolver(t, `{"data_sources":{"tenant://x/y":{"adapter":"data.sqlite","database_path":"a.sqlite"}}}`, nil)
	override := filepath.Join(r.Workspace, "override.json")
	os.WriteFile(override, []byte(`{"data_sources":{"tenant://x/y":{"adapter":"data.redis","endpoint":"redis://127.0.0.1:1/0"}}}`), 0o644)
	env := map[string]string{"RUNX_DATA_SOURCES": "override.json"}
	r.LookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	b, err := r.Resolve(bg, "tenant://x/y")
	if err != nil || b.Adapter != "data.redis" {
		t.Fatalf("%+v %v", b, err)
	}
	// An override naming a missing file is an error, never the defaults.
	env["RUNX_DATA_SOURCES"] = "nowhere.json"
	for _, resolve := range []func() error{
		func() error { _, err := r.Resolve(bg, "tenant://x/y"); return err },
		func() error { _, err := r.Resolve(bg, "local://anything"); return err },
		func() error { _, err := r.WorkspaceStore(bg); return err },
	} {
		if err := resolve(); contract.CodeOf(err) != "data_sources_missing" || !strings.Contains(err.Error(), "nowhere.json") {
			t.Fatalf("want data_sources_missing naming the file, got %v", err)
		}
	}
}

// A profile's variable is one a shell can export: '-' and '.' become '_'.
func TestProfileVariableIsExportable(t *testing.T) {
	for profile, want := range map[string]string{
		"prod":       "RUNX_DATA_PROFILE_PROD_PASSWORD",
		"my-db":      "RUNX_DATA_PROFILE_MY_DB_PASSWORD",
		"prod-board": "RUNX_DATA_PROFILE_PROD_BOARD_PASSWORD",
		"a.b-c_d":    "RUNX_DATA_PROFILE_A_B_C_D_PASSWORD",
	} {
		if got := ProfileVariable(profile); got != want {
			t.Errorf("%s: got %s, want %s", profile, got, want)
		}
	}
	doc := `{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","profile":"my-db"}}}`
	r := resolver(t, doc, map[string]string{"RUNX_DATA_PROFILE_MY_DB_PASSWORD": "pw"})
	b, err := r.Resolve(bg, "tenant://a/b")
	if err != nil {
		t.Fatal(err)
	}
	if creds, err := r.Credentials(bg, b, t.TempDir()); err != nil || creds["password"] != "pw" {
		t.Fatalf("credentials from the exportable variable: %v %v", creds, err)
	}
	missing := resolver(t, doc, nil)
	b, _ = missing.Resolve(bg, "tenant://a/b")
	_, err = missing.Credentials(bg, b, t.TempDir())
	if contract.CodeOf(err) != "credential_missing" || !strings.Contains(err.Error(), "RUNX_DATA_PROFILE_MY_DB_PASSWORD") {
		t.Fatalf("the message must name the variable to export: %v", err)
	}
}

func TestRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		doc, ref, code string
	}{
		"raw password field":    {`{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","endpoint":"postgres://h/db","password":"x"}}}`, "tenant://a/b", "binding_secret_refused"},
		"password in endpoint":  {`{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","endpoint":"postgres://u:pw@h/db"}}}`, "tenant://a/b", "binding_secret_refused"},
		"password in query":     {`{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","endpoint":"postgres://u@h/db?password=pw"}}}`, "tenant://a/b", "binding_secret_refused"},
		"unknown adapter":       {`{"data_sources":{"tenant://a/b":{"adapter":"data.mongo","endpoint":"x"}}}`, "tenant://a/b", "data_sources_invalid"},
		"no adapter":            {`{"data_sources":{"tenant://a/b":{"endpoint":"x"}}}`, "tenant://a/b", "data_sources_invalid"},
		"unknown field":         {`{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"x","colour":"red"}}}`, "tenant://a/b", "data_sources_invalid"},
		"sqlite without path":   {`{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite"}}}`, "tenant://a/b", "data_sources_invalid"},
		"postgres with neither": {`{"data_sources":{"tenant://a/b":{"adapter":"data.postgres"}}}`, "tenant://a/b", "data_sources_invalid"},
		"unbound tenant":        {``, "tenant://a/b", "data_source_unbound"},
		"not a ref":             {``, "mysql://x", "data_source_ref_invalid"},
		"traversal":             {``, "local://../../etc", "data_source_ref_invalid"},
		"not a document":        {`{"sources":{}}`, "tenant://a/b", "data_sources_invalid"},
		"field in another case": {`{"Data_Sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"x"}}}`, "tenant://a/b", "data_sources_invalid"},
		"ref twice":             {`{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"x"},"tenant://a/b":{"adapter":"data.sqlite","database_path":"y"}}}`, "tenant://a/b", "data_sources_invalid"},
		"binding field twice":   {`{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"x","database_path":"y"}}}`, "tenant://a/b", "data_sources_invalid"},
		"over its ceiling":      {`{"data_sources":{"tenant://a/b":{"adapter":"data.sqlite","database_path":"` + strings.Repeat("a", MaxFileBytes) + `"}}}`, "tenant://a/b", "data_sources_invalid"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := resolver(t, tc.doc, nil).Resolve(bg, tc.ref)
			if string(contract.CodeOf(err)) != tc.code {
				t.Fatalf("want %s, got %v", tc.code, err)
			}
		})
	}
	r := resolver(t, `{"data_sources":{"tenant://a/b":{"adapter":"data.postgres","endpoint":"postgres://u@h/db","profile":"p"}}}`, nil)
	b, _ := r.Resolve(bg, "tenant://a/b")
	if _, err := r.Credentials(bg, b, t.TempDir()); contract.CodeOf(err) != "credential_missing" {
		t.Fatalf("missing credential: %v", err)
	}
}

func TestUseStoreChecksTheBinding(t *testing.T) {
	r := resolver(t, "", nil)
	if _, err := r.UseStore(bg, map[string]any{"adapter": "data.redis", "endpoint": "redis://u:pw@h/0"}); contract.CodeOf(err) != "binding_secret_refused" {
		t.Fatalf("got %v", err)
	}
	b, err := r.UseStore(bg, map[string]any{"adapter": "data.redis", "endpoint": "redis://h/0", "profile": "cache"})
	if err != nil || b.Adapter != "data.redis" {
		t.Fatal(b, err)
	}
	ws, err := r.WorkspaceStore(bg)
	if err != nil || ws.Adapter != "data.redis" || !ws.Default || ws.Profile != "cache" {
		t.Fatalf("%+v %v", ws, err)
	}
}
