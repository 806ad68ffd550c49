// Package datasource resolves the logical data source a skill names
// (local://…, tenant://…, runx:data-source:…) to the binding an operator
// chose: .runx/data-sources.json for the project, RUNX_DATA_SOURCES for one
// run, and for an unbound local:// ref a SQLite file of its own under
// .runx/data/local-sources/. A binding is authority-bearing configuration:
// it may name a credential profile, never hold a secret. Skills never see
// which provider answers.
package datasource

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
)

// Adapters a binding may name.
const (
	AdapterSQLite   = "data.sqlite"
	AdapterPostgres = "data.postgres"
	AdapterRedis    = "data.redis"
)

// FileName is the project's bindings file under .runx.
const FileName = "data-sources.json"

// Resource declares one resource a source holds.
type Resource struct {
	Kind         string `json:"kind"`
	PartitionKey string `json:"partition_key,omitempty"`
}

// Binding is one source's non-secret binding.
type Binding struct {
	Ref          string              `json:"ref"`
	Adapter      string              `json:"adapter"`
	DatabasePath string              `json:"database_path,omitempty"`
	Endpoint     string              `json:"endpoint,omitempty"`
	KeyPrefix    string              `json:"key_prefix,omitempty"`
	Profile      string              `json:"profile,omitempty"`
	Resources    map[string]Resource `json:"resources,omitempty"`
	// Default is true for an unbound local:// ref given its own SQLite file.
	Default bool `json:"default,omitempty"`
}

type file struct {
	DataSources map[string]json.RawMessage `json:"data_sources"`
}

var refPattern = regexp.MustCompile(`^(local://|tenant://|runx:data-source:)[A-Za-z0-9._~/:@+-]+$`)

// secretFields are names a binding must never carry; a secret reaches the
// driver only through the credential boundary.
var secretFields = map[string]bool{"password": true, "secret": true, "token": true, "api_key": true, "apikey": true, "credential": true, "credentials": true, "private_key": true}

// Resolver resolves refs for one project.
type Resolver struct {
	ProjectDir string
	Workspace  string
	LookupEnv  func(string) (string, bool)
}

// Resolve returns the binding for ref.
func (r *Resolver) Resolve(ref string) (*Binding, error) {
	if !refPattern.MatchString(ref) || strings.Contains(ref, "..") {
		return nil, contract.Errorf("data_source_ref_invalid", "%q is not a data source ref (local://…, tenant://…, runx:data-source:…)", ref)
	}
	bindings, err := r.load()
	if err != nil {
		return nil, err
	}
	if raw, ok := bindings[ref]; ok {
		return r.parse(ref, raw)
	}
	if strings.HasPrefix(ref, "local://") {
		sum := sha256.Sum256([]byte(ref))
		name := sanitize(strings.TrimPrefix(ref, "local://")) + "-" + hex.EncodeToString(sum[:6]) + ".sqlite"
		return &Binding{Ref: ref, Adapter: AdapterSQLite, DatabasePath: filepath.Join(r.ProjectDir, "data", "local-sources", name), Default: true}, nil
	}
	return nil, contract.Errorf("data_source_unbound", "data source %s is not bound: bind it in .runx/%s (or RUNX_DATA_SOURCES for one run)", ref, FileName)
}

// WorkspaceRef is the source of a package's own streams when a step names
// none.
const WorkspaceRef = "runx:data-source:workspace"

// WorkspaceStore is the binding of a package's own streams when a step names
// no source: .runx/store.sqlite, unless `runx connector use store` moved it.
func (r *Resolver) WorkspaceStore() (*Binding, error) {
	bindings, err := r.load()
	if err != nil {
		return nil, err
	}
	if raw, ok := bindings[WorkspaceRef]; ok {
		b, err := r.parse(WorkspaceRef, raw)
		if err != nil {
			return nil, err
		}
		b.Default = true
		return b, nil
	}
	return &Binding{Ref: WorkspaceRef, Adapter: AdapterSQLite, DatabasePath: filepath.Join(r.ProjectDir, "store.sqlite"), Default: true}, nil
}

// UseStore binds the workspace store to the store a URL names (a SQLite file
// path, postgres://… or redis://… without a password), in the project's
// bindings file, and returns the binding.
func (r *Resolver) UseStore(rawURL, profile string) (*Binding, error) {
	b := map[string]any{}
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		b["adapter"], b["endpoint"] = AdapterPostgres, rawURL
	case strings.HasPrefix(rawURL, "redis://"), strings.HasPrefix(rawURL, "rediss://"):
		b["adapter"], b["endpoint"] = AdapterRedis, rawURL
	case strings.HasPrefix(rawURL, "sqlite://"), !strings.Contains(rawURL, "://"):
		b["adapter"], b["database_path"] = AdapterSQLite, strings.TrimPrefix(rawURL, "sqlite://")
	default:
		return nil, contract.Errorf("store_url_invalid", "--parameter url takes a SQLite path, postgres://… or redis://…")
	}
	if profile != "" {
		b["profile"] = profile
	}
	raw, _ := json.Marshal(b)
	binding, err := r.parse(WorkspaceRef, raw)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(r.ProjectDir, FileName)
	doc := map[string]map[string]json.RawMessage{"data_sources": {}}
	if existing, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(existing, &doc); err != nil || doc["data_sources"] == nil {
			return nil, contract.Errorf("data_sources_invalid", "%s is not a data_sources document; fix it before binding the store", path)
		}
	}
	doc["data_sources"][WorkspaceRef] = raw
	out, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.MkdirAll(r.ProjectDir, 0o755); err != nil {
		return nil, err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return nil, err
	}
	return binding, os.Rename(tmp, path)
}

// SetSecret keeps a credential in the runx home (0600), where a binding's
// profile finds it; the value is never echoed.
func SetSecret(homeDir, name string, value []byte) error {
	if sanitize(name) != name || name == "" {
		return contract.Errorf("secret_name_invalid", "a secret name is letters, digits, '.', '-' and '_'")
	}
	v := strings.TrimRight(string(value), "\r\n")
	if v == "" {
		return contract.Errorf("secret_empty", "no secret was given on standard input")
	}
	dir := filepath.Join(homeDir, "secrets")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(v+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// load reads the one-run override when set, else the project file.
func (r *Resolver) load() (map[string]json.RawMessage, error) {
	path := filepath.Join(r.ProjectDir, FileName)
	if v, ok := r.LookupEnv("RUNX_DATA_SOURCES"); ok && v != "" {
		path = v
		if !filepath.IsAbs(path) {
			path = filepath.Join(r.Workspace, path)
		}
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, contract.Errorf("data_sources_unreadable", "cannot read %s: %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, contract.Errorf("data_sources_invalid", "%s is not a data_sources document: %v", path, err)
	}
	return f.DataSources, nil
}

func (r *Resolver) parse(ref string, raw json.RawMessage) (*Binding, error) {
	var loose map[string]any
	if err := json.Unmarshal(raw, &loose); err != nil {
		return nil, contract.Errorf("data_sources_invalid", "binding for %s is not an object", ref)
	}
	for _, k := range sortedKeys(loose) {
		if secretFields[strings.ToLower(k)] {
			return nil, contract.Errorf("binding_secret_refused", "binding for %s holds %q: a binding names a credential profile and never holds a secret (runx secret set <profile>)", ref, k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	b := &Binding{}
	if err := dec.Decode(b); err != nil {
		return nil, contract.Errorf("data_sources_invalid", "binding for %s: %v", ref, err)
	}
	b.Ref = ref
	switch b.Adapter {
	case AdapterSQLite:
		if b.DatabasePath == "" {
			return nil, contract.Errorf("data_sources_invalid", "binding for %s (data.sqlite) needs database_path", ref)
		}
		if !filepath.IsAbs(b.DatabasePath) {
			b.DatabasePath = filepath.Join(r.Workspace, b.DatabasePath)
		}
	case AdapterPostgres, AdapterRedis:
		if b.Endpoint == "" && b.Profile == "" {
			return nil, contract.Errorf("data_sources_invalid", "binding for %s (%s) needs an endpoint or a profile", ref, b.Adapter)
		}
		if b.Endpoint != "" {
			u, err := url.Parse(b.Endpoint)
			if err != nil {
				return nil, contract.Errorf("data_sources_invalid", "binding for %s: endpoint is not a URL", ref)
			}
			if _, has := u.User.Password(); has {
				return nil, contract.Errorf("binding_secret_refused", "binding for %s puts a password in its endpoint: name a profile and deliver the password with runx secret set", ref)
			}
			if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
				return nil, contract.Errorf("binding_secret_refused", "binding for %s puts a password in its endpoint's query", ref)
			}
		}
	default:
		return nil, contract.Errorf("data_sources_invalid", "binding for %s names adapter %q; this runx has data.sqlite, data.postgres and data.redis", ref, b.Adapter)
	}
	return b, nil
}

// Credentials returns what the binding's profile delivers, by name, from the
// variable RUNX_DATA_PROFILE_<PROFILE>_PASSWORD or the runx home's secrets.
func (r *Resolver) Credentials(b *Binding, homeDir string) (map[string]string, error) {
	if b.Profile == "" {
		return nil, nil
	}
	name := "RUNX_DATA_PROFILE_" + strings.ToUpper(sanitize(b.Profile)) + "_PASSWORD"
	if v, ok := r.LookupEnv(name); ok && v != "" {
		return map[string]string{"password": v}, nil
	}
	raw, err := os.ReadFile(filepath.Join(homeDir, "secrets", "data-"+sanitize(b.Profile)))
	if err == nil {
		return map[string]string{"password": strings.TrimRight(string(raw), "\r\n")}, nil
	}
	return nil, contract.Errorf("credential_missing", "data source %s names profile %q: set %s or run `runx secret set data-%s`", b.Ref, b.Profile, name, sanitize(b.Profile))
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func sanitize(s string) string {
	return strings.Trim(unsafe.ReplaceAllString(s, "_"), "_.")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
