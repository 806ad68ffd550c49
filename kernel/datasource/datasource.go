// Package datasource resolves the logical data source a skill names
// (local://…, tenant://…, runx:data-source:…) to the binding an operator
// chose: .runx/data-sources.json for the project, RUNX_DATA_SOURCES for one
// run, and for an unbound local:// ref a store file of its own under
// .runx/data/local-sources/. A binding is authority-bearing configuration:
// it may name a credential profile, never hold a secret. Skills never see
// which provider answers.
//
// The package knows no adapter. A binding names an adapter id; the plugin
// that declares that adapter (found through Adapters, the plugin host's
// catalog) says with its binding_schema what a binding of it may hold, and
// the binding is checked against that schema when it is resolved.
package datasource

import (
	"bytes"
	"context"
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
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/pkg/schema"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// FileName is the project's bindings file under .runx.
const FileName = "data-sources.json"

// Resource declares one resource a source holds. Secret and Private list
// the event fields (JSON pointers) its reads redact.
type Resource struct {
	Kind         string   `json:"kind"`
	PartitionKey string   `json:"partition_key,omitempty"`
	Secret       []string `json:"secret,omitempty"`
	Private      []string `json:"private,omitempty"`
}

// Binding is one source's non-secret binding: the adapter it names, the
// credential profile and resources the kernel reads, and the adapter's own
// parameters, as written.
type Binding struct {
	Ref       string
	Adapter   string
	Profile   string
	Resources map[string]Resource
	// Params are the adapter's parameters (an endpoint, a file, a key
	// prefix): whatever its binding_schema admits beyond the fields above.
	Params map[string]any
	// Default is true for the workspace store and an unbound local:// ref.
	Default bool
}

// MarshalJSON writes the binding as the adapter's plugin reads it: one
// object with the parameters beside ref, adapter, profile and resources.
func (b *Binding) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(b.Params)+5)
	for k, v := range b.Params {
		out[k] = v
	}
	out["ref"], out["adapter"] = b.Ref, b.Adapter
	if b.Profile != "" {
		out["profile"] = b.Profile
	}
	if len(b.Resources) > 0 {
		out["resources"] = b.Resources
	}
	if b.Default {
		out["default"] = true
	}
	return json.Marshal(out)
}

// Param is one adapter parameter as a string ("" when absent).
func (b *Binding) Param(name string) string {
	s, _ := b.Params[name].(string)
	return s
}

// LocalStore is how the kernel binds a store it places itself (the
// workspace store, an unbound local:// ref): an adapter that keeps a store
// in one file, and the binding parameter naming that file. cmd/runx names
// them; the kernel names no adapter.
type LocalStore struct {
	Adapter   string
	PathParam string
	// Ext is the file name's extension, e.g. ".sqlite".
	Ext string
}

type file struct {
	DataSources map[string]json.RawMessage `json:"data_sources"`
}

var refPattern = regexp.MustCompile(`^(local://|tenant://|runx:data-source:)[A-Za-z0-9._~/:@+-]+$`)

// Resolver resolves refs for one project.
type Resolver struct {
	ProjectDir string
	Workspace  string
	LookupEnv  func(string) (string, bool)
	// Adapter finds the declaration of an adapter id.
	Adapter func(ctx context.Context, id string) (*sdk.Adapter, error)
	// Known lists the adapter ids the installed plugins declare, for
	// messages.
	Known func() []string
	// Local binds the stores the kernel places itself.
	Local LocalStore
}

// Resolve returns the binding for ref.
func (r *Resolver) Resolve(ctx context.Context, ref string) (*Binding, error) {
	if !refPattern.MatchString(ref) || strings.Contains(ref, "..") {
		return nil, contract.Errorf(errcode.DataSourceRefInvalid, "%q is not a data source ref (local://…, tenant://…, runx:data-source:…)", ref)
	}
	bindings, err := r.load()
	if err != nil {
		return nil, err
	}
	if raw, ok := bindings[ref]; ok {
		return r.parse(ctx, ref, raw)
	}
	if strings.HasPrefix(ref, "local://") {
		sum := sha256.Sum256([]byte(ref))
		name := sanitize(strings.TrimPrefix(ref, "local://")) + "-" + hex.EncodeToString(sum[:6])
		return r.local(ctx, ref, filepath.Join(r.ProjectDir, "data", "local-sources", name))
	}
	return nil, contract.Errorf(errcode.DataSourceUnbound, "data source %s is not bound: bind it in .runx/%s (or RUNX_DATA_SOURCES for one run)", ref, FileName)
}

// local binds a store the kernel places at path (without extension).
func (r *Resolver) local(ctx context.Context, ref, path string) (*Binding, error) {
	if r.Local.Adapter == "" || r.Local.PathParam == "" {
		return nil, contract.Errorf(errcode.DataSourceUnbound, "data source %s is not bound and this runx names no local store adapter: bind it in .runx/%s", ref, FileName)
	}
	if _, err := r.adapter(ctx, ref, r.Local.Adapter); err != nil {
		return nil, err
	}
	return &Binding{Ref: ref, Adapter: r.Local.Adapter, Params: map[string]any{r.Local.PathParam: path + r.Local.Ext}, Default: true}, nil
}

// WorkspaceRef is the source of a package's own streams when a step names
// none.
const WorkspaceRef = "runx:data-source:workspace"

// WorkspaceStore is the binding of a package's own streams when a step names
// no source: .runx/store<ext> in the local store adapter, unless `runx
// connector use store` bound it elsewhere.
func (r *Resolver) WorkspaceStore(ctx context.Context) (*Binding, error) {
	bindings, err := r.load()
	if err != nil {
		return nil, err
	}
	if raw, ok := bindings[WorkspaceRef]; ok {
		b, err := r.parse(ctx, WorkspaceRef, raw)
		if err != nil {
			return nil, err
		}
		b.Default = true
		return b, nil
	}
	return r.local(ctx, WorkspaceRef, filepath.Join(r.ProjectDir, "store"))
}

// UseStore binds the workspace store, in the project's bindings file, to the
// binding given (an adapter and its parameters), after checking it as any
// binding is checked, and returns it.
func (r *Resolver) UseStore(ctx context.Context, binding map[string]any) (*Binding, error) {
	raw, err := json.Marshal(binding)
	if err != nil {
		return nil, err
	}
	b, err := r.parse(ctx, WorkspaceRef, raw)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(r.ProjectDir, FileName)
	doc := map[string]map[string]json.RawMessage{"data_sources": {}}
	if existing, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(existing, &doc); err != nil || doc["data_sources"] == nil {
			return nil, contract.Errorf(errcode.DataSourcesInvalid, "%s is not a data_sources document; fix it before binding the store", path)
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
	return b, os.Rename(tmp, path)
}

// load reads the one-run override when set, else the project file. A
// project without the file has no bindings; an override naming a file that
// is not there is an error, never a silent fall back to the defaults.
func (r *Resolver) load() (map[string]json.RawMessage, error) {
	path := filepath.Join(r.ProjectDir, FileName)
	override := false
	if v, ok := r.LookupEnv("RUNX_DATA_SOURCES"); ok && v != "" {
		path, override = v, true
		if !filepath.IsAbs(path) {
			path = filepath.Join(r.Workspace, path)
		}
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if override {
			return nil, contract.Errorf(errcode.DataSourcesMissing, "RUNX_DATA_SOURCES names %s, which does not exist: create it or unset RUNX_DATA_SOURCES", path)
		}
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, contract.Errorf(errcode.DataSourcesUnreadable, "cannot read %s: %v", path, err)
	}
	if len(raw) > MaxFileBytes {
		return nil, contract.Errorf(errcode.DataSourcesInvalid, "%s is %d bytes, over the %d byte ceiling on a data_sources document", path, len(raw), MaxFileBytes)
	}
	// Read strictly: encoding/json keeps the last of two equal keys and
	// matches "Data_Sources" to data_sources; either would let the file
	// mean something other than it shows.
	dup, err := contract.DuplicateKey(raw)
	if err != nil {
		return nil, contract.Errorf(errcode.DataSourcesInvalid, "%s is not one JSON document", path)
	}
	if dup != "" {
		return nil, contract.Errorf(errcode.DataSourcesInvalid, "%s: key %s appears more than once in one object", path, dup)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, contract.Errorf(errcode.DataSourcesInvalid, "%s is not a data_sources document: it must be a JSON object", path)
	}
	for k := range top {
		if k != "data_sources" {
			return nil, contract.Errorf(errcode.DataSourcesInvalid, "%s is not a data_sources document: unknown field %q (the one field is data_sources, spelled exactly)", path, k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, contract.Errorf(errcode.DataSourcesInvalid, "%s is not a data_sources document: %v", path, err)
	}
	return f.DataSources, nil
}

// MaxFileBytes bounds a data_sources document: bindings name adapters and
// profiles, never content.
const MaxFileBytes = 1 << 20

// kernelFields are the binding fields the kernel itself reads.
var kernelFields = map[string]bool{"adapter": true, "profile": true, "resources": true}

func (r *Resolver) parse(ctx context.Context, ref string, raw json.RawMessage) (*Binding, error) {
	var loose map[string]any
	if err := json.Unmarshal(raw, &loose); err != nil || loose == nil {
		return nil, contract.Errorf(errcode.DataSourcesInvalid, "binding for %s is not an object", ref)
	}
	for _, k := range sortedKeys(loose) {
		// A secret's name (credential.IsSecretFieldName) is never a binding's
		// field: a secret reaches the driver only through the credential
		// boundary.
		if credential.IsSecretFieldName(k) {
			return nil, contract.Errorf(errcode.BindingSecretRefused, "binding for %s holds %q: a binding names a credential profile and never holds a secret (runx secret set <profile>)", ref, k)
		}
		if err := refuseURLSecret(ref, k, loose[k]); err != nil {
			return nil, err
		}
	}
	id, _ := loose["adapter"].(string)
	if id == "" {
		return nil, contract.Errorf(errcode.DataSourcesInvalid, "binding for %s names no adapter", ref)
	}
	adapter, err := r.adapter(ctx, ref, id)
	if err != nil {
		return nil, err
	}
	if len(adapter.BindingSchema) > 0 {
		s, err := compiled(adapter)
		if err != nil {
			return nil, contract.Errorf(errcode.DataAdapterSchemaUnsupported, "adapter %s declares a binding schema runx cannot check: %v", id, err)
		}
		if bad := s.Validate(loose); bad != nil {
			return nil, contract.Errorf(errcode.DataSourcesInvalid, "binding for %s does not match adapter %s's binding schema: %s", ref, id, bad)
		}
	}
	b := &Binding{Ref: ref, Adapter: id, Params: map[string]any{}}
	if p, ok := loose["profile"]; ok {
		if b.Profile, _ = p.(string); b.Profile == "" {
			return nil, contract.Errorf(errcode.DataSourcesInvalid, "binding for %s: profile must be a non-empty string", ref)
		}
	}
	if res, ok := loose["resources"]; ok {
		rr, _ := json.Marshal(res)
		dec := json.NewDecoder(bytes.NewReader(rr))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&b.Resources); err != nil {
			return nil, contract.Errorf(errcode.DataSourcesInvalid, "binding for %s: resources: %v", ref, err)
		}
	}
	for k, v := range loose {
		if !kernelFields[k] {
			b.Params[k] = v
		}
	}
	return b, nil
}

// refuseURLSecret refuses a parameter that is a URL carrying a password, in
// its user part or its query: a secret hidden in an endpoint is still a
// secret.
func refuseURLSecret(ref, field string, v any) error {
	s, ok := v.(string)
	if !ok || !strings.Contains(s, "://") {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return contract.Errorf(errcode.DataSourcesInvalid, "binding for %s: %s is not a URL", ref, field)
	}
	if _, has := u.User.Password(); has {
		return contract.Errorf(errcode.BindingSecretRefused, "binding for %s puts a password in its %s: name a profile and deliver the password with runx secret set", ref, field)
	}
	if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
		return contract.Errorf(errcode.BindingSecretRefused, "binding for %s puts a password in its %s's query", ref, field)
	}
	return nil
}

func (r *Resolver) adapter(ctx context.Context, ref, id string) (*sdk.Adapter, error) {
	if r.Adapter != nil {
		if a, err := r.Adapter(ctx, id); err == nil {
			return a, nil
		}
	}
	known := "none"
	if r.Known != nil {
		if ids := r.Known(); len(ids) > 0 {
			known = strings.Join(ids, ", ")
		}
	}
	return nil, contract.Errorf(errcode.DataSourcesInvalid, "binding for %s names adapter %q, which no installed plugin declares (this runx has: %s)", ref, id, known)
}

// schemas are the compiled binding schemas, by adapter id and schema text.
var schemas sync.Map

func compiled(a *sdk.Adapter) (*schema.Schema, error) {
	key := a.ID + "\x00" + string(a.BindingSchema)
	if s, ok := schemas.Load(key); ok {
		return s.(*schema.Schema), nil
	}
	s, err := schema.Compile(a.BindingSchema)
	if err != nil {
		return nil, err
	}
	schemas.Store(key, s)
	return s, nil
}

// ProfileVariable is the environment variable a profile's password is
// delivered from: ProfileCredentialVariable(profile, "password").
func ProfileVariable(profile string) string {
	return ProfileCredentialVariable(profile, "password")
}

// ProfileCredentialVariable is the environment variable one credential of
// a profile is delivered from: RUNX_DATA_PROFILE_<PROFILE>_<NAME>, both
// upper-cased and every character a shell name cannot hold ('-', '.')
// written as '_', so `export` accepts it.
func ProfileCredentialVariable(profile, credential string) string {
	return "RUNX_DATA_PROFILE_" + shellName(profile) + "_" + shellName(credential)
}

func shellName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, s)
}

// Credentials returns what the binding's profile delivers, by the names the
// binding's adapter declares (sdk Adapter.Credentials), each from the
// variable ProfileCredentialVariable names or the runx home's secrets
// (`data-<profile>` for an adapter's one credential, `data-<profile>-<name>`
// where it declares several). A profile on an adapter that takes no
// credentials is refused: it would deliver nothing the operator expects.
func (r *Resolver) Credentials(ctx context.Context, b *Binding, homeDir string) (map[string]string, error) {
	if b.Profile == "" {
		return nil, nil
	}
	a, err := r.adapter(ctx, b.Ref, b.Adapter)
	if err != nil {
		return nil, err
	}
	if len(a.Credentials) == 0 {
		return nil, contract.Errorf(errcode.CredentialUnsupported, "data source %s names profile %q, but adapter %s takes no credentials: drop the profile", b.Ref, b.Profile, b.Adapter)
	}
	creds := make(map[string]string, len(a.Credentials))
	for _, name := range a.Credentials {
		variable := ProfileCredentialVariable(b.Profile, name)
		if v, ok := r.LookupEnv(variable); ok && v != "" {
			creds[name] = v
			continue
		}
		secret := "data-" + sanitize(b.Profile)
		if len(a.Credentials) > 1 {
			secret += "-" + sanitize(name)
		}
		v, ok, err := credential.ReadSecret(homeDir, secret)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, contract.Errorf(errcode.CredentialMissing, "data source %s names profile %q, whose %s is not delivered: set %s or run `runx secret set %s`", b.Ref, b.Profile, name, variable, secret)
		}
		creds[name] = v
	}
	return creds, nil
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
