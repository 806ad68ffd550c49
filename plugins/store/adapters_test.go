package store

import (
	"bytes"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compileBinding(t *testing.T, a plugin.Adapter) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(a.BindingSchema))
	if err != nil {
		t.Fatalf("%s: binding schema is not JSON: %v", a.ID, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(a.ID+".json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(a.ID + ".json")
	if err != nil {
		t.Fatalf("%s: binding schema does not compile: %v", a.ID, err)
	}
	return s
}

// Each adapter's binding schema admits the bindings kernel/datasource
// admits today and refuses a field the adapter would not use.
func TestAdapterBindingSchemas(t *testing.T) {
	info := New().Info()
	byID := map[string]plugin.Adapter{}
	for _, a := range info.Adapters {
		byID[a.ID] = a
	}
	for id, tc := range map[string]struct {
		creds  []string
		accept []string
		refuse []string
	}{
		AdapterSQLite: {nil,
			[]string{`{"adapter":"data.sqlite","database_path":"data/app.sqlite"}`, `{"adapter":"data.sqlite","database_path":"/abs.sqlite","resources":{"orders":{"kind":"events","partition_key":"id"}}}`},
			[]string{`{"adapter":"data.sqlite"}`, `{"adapter":"data.sqlite","database_path":""}`, `{"adapter":"data.sqlite","database_path":"a","endpoint":"postgres://h/db"}`, `{"adapter":"data.redis","database_path":"a"}`, `{"adapter":"data.sqlite","database_path":"a","password":"x"}`}},
		AdapterPostgres: {[]string{CredentialPassword},
			[]string{`{"adapter":"data.postgres","endpoint":"postgres://app@db/app"}`, `{"adapter":"data.postgres","profile":"prod"}`, `{"adapter":"data.postgres","endpoint":"postgresql://db/app","profile":"prod"}`},
			[]string{`{"adapter":"data.postgres"}`, `{"adapter":"data.postgres","endpoint":"redis://h"}`, `{"adapter":"data.postgres","profile":"p","key_prefix":"x"}`, `{"adapter":"data.postgres","profile":"p","database_path":"a"}`}},
		AdapterRedis: {[]string{CredentialPassword},
			[]string{`{"adapter":"data.redis","endpoint":"redis://127.0.0.1:6379/0"}`, `{"adapter":"data.redis","endpoint":"rediss://h","key_prefix":"app"}`, `{"adapter":"data.redis","profile":"cache"}`},
			[]string{`{"adapter":"data.redis"}`, `{"adapter":"data.redis","endpoint":"postgres://h"}`, `{"adapter":"data.redis","profile":"p","key_prefix":""}`, `{"adapter":"data.redis","profile":"p","resources":{"r":{}}}`}},
	} {
		a, ok := byID[id]
		if !ok {
			t.Fatalf("the store plugin does not declare %s", id)
		}
		if len(a.Credentials) != len(tc.creds) || (len(tc.creds) > 0 && a.Credentials[0] != tc.creds[0]) {
			t.Errorf("%s credentials %v, want %v", id, a.Credentials, tc.creds)
		}
		s := compileBinding(t, a)
		for _, doc := range tc.accept {
			v, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(doc)))
			if err := s.Validate(v); err != nil {
				t.Errorf("%s refuses %s: %v", id, doc, err)
			}
		}
		for _, doc := range tc.refuse {
			v, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(doc)))
			if err := s.Validate(v); err == nil {
				t.Errorf("%s admits %s", id, doc)
			}
		}
	}
}

func TestStoreRolesAndEffects(t *testing.T) {
	info := New().Info()
	for id, want := range map[string]struct{ effect, role string }{
		CapAppend: {plugin.EffectWrite, plugin.RoleDataOperation}, CapRead: {plugin.EffectRead, plugin.RoleDataOperation},
		CapInspect: {plugin.EffectRead, plugin.RoleDataOperation}, CapList: {plugin.EffectRead, plugin.RoleDataOperation},
		CapMigrate: {plugin.EffectWrite, plugin.RoleDataMigrate},
	} {
		d := info.Find(id)
		if d == nil || d.Effect != want.effect || !d.HasRole(want.role) || len(d.Roles) != 1 {
			t.Errorf("%s: %+v, want effect %s role %s", id, d, want.effect, want.role)
		}
	}
}
