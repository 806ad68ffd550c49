package packet

import (
	"fmt"
	"sort"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/pkg/schema"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// ValidID reports whether id has the shape of a packet id: dotted
// lowercase names ending in a version, runx.verdict.v1 or
// acme.billing.invoice.v2, at most 128 bytes.
func ValidID(id string) bool { return pkg.ValidPacketID(id) }

// Who described a schema: the kernel's own contract, a plugin, a package.
const (
	FromKernel  = "runx"
	FromPlugin  = "plugin"
	FromPackage = "package"
)

// Schema is one packet schema as a description declared it.
type Schema struct {
	ID string `json:"id"`
	// Doc is the JSON Schema the packet's data meets (the subset
	// kernel/pkg/schema checks).
	Doc map[string]any `json:"schema"`
	// Digest is the digest of Doc's canonical JSON: two descriptions of
	// one id agree when their digests do.
	Digest string `json:"digest"`
	// From says who described it (FromKernel, FromPlugin, FromPackage)
	// and Name which one (a plugin's or package's name; empty for runx).
	From string `json:"from"`
	Name string `json:"name,omitempty"`

	compiled *schema.Schema
}

// NewSchema compiles a description of packet id.
func NewSchema(id string, doc map[string]any, from, name string) (*Schema, error) {
	if !ValidID(id) {
		return nil, contract.Errorf(errcode.PacketSchemaInvalid, "%q is not a packet id (dotted lowercase names ending in a version, as acme.report.v1)", id)
	}
	compiled, err := schema.CompileValue(doc)
	if err != nil {
		return nil, contract.Errorf(errcode.PacketSchemaInvalid, "packet %s: its schema does not compile: %v", id, err)
	}
	digest, err := canon.Digest(doc)
	if err != nil {
		return nil, contract.Errorf(errcode.PacketSchemaInvalid, "packet %s: its schema has no canonical JSON: %v", id, err)
	}
	return &Schema{ID: id, Doc: doc, Digest: digest, From: from, Name: name, compiled: compiled}, nil
}

// Check holds a value to the packet's schema (packet_invalid).
func (s *Schema) Check(v any) error {
	if bad := s.compiled.Validate(v); bad != nil {
		return contract.Errorf(errcode.PacketInvalid, "the value does not meet packet %s: %s", s.ID, bad)
	}
	return nil
}

// Registry holds the packet schemas known to a kernel, or to one run of a
// package (With). It is safe for concurrent use.
type Registry struct {
	base *Registry
	mu   sync.RWMutex
	byID map[string]*Schema
}

// NewRegistry is a registry holding the kernel's own contract packets.
func NewRegistry() *Registry {
	r := &Registry{byID: map[string]*Schema{}}
	for _, s := range kernelSchemas() {
		r.byID[s.ID] = s
	}
	return r
}

// Register adds s. The same schema registered again is a no-op; another
// schema under a registered id is refused (packet_schema_conflict), so no
// description redefines a packet another relies on.
func (r *Registry) Register(s *Schema) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	have, ok := r.byID[s.ID]
	if !ok && r.base != nil {
		have, ok = r.base.Lookup(s.ID)
	}
	if ok {
		if have.Digest == s.Digest {
			return nil
		}
		return contract.Errorf(errcode.PacketSchemaConflict, "packet %s is described by %s and again, differently, by %s", s.ID, who(have), who(s))
	}
	r.byID[s.ID] = s
	return nil
}

// With is a registry that sees r and holds more of its own: a package's
// declared schemas for one run, leaving r as it was.
func (r *Registry) With(more ...*Schema) (*Registry, error) {
	v := &Registry{base: r, byID: map[string]*Schema{}}
	for _, s := range more {
		if err := v.Register(s); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Lookup is the schema of packet id.
func (r *Registry) Lookup(id string) (*Schema, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	s, ok := r.byID[id]
	r.mu.RUnlock()
	if !ok && r.base != nil {
		return r.base.Lookup(id)
	}
	return s, ok
}

// Require is the schema of packet id, or packet_unknown naming what asked.
func (r *Registry) Require(id, what string) (*Schema, error) {
	if s, ok := r.Lookup(id); ok {
		return s, nil
	}
	return nil, contract.Errorf(errcode.PacketUnknown, "%s names packet %s, which no description registers: declare its schema in the package (schemas/%s.json) or install the plugin that describes it", what, id, id)
}

// IDs lists every packet id known, sorted.
func (r *Registry) IDs() []string {
	seen := map[string]bool{}
	for v := r; v != nil; v = v.base {
		v.mu.RLock()
		for id := range v.byID {
			seen[id] = true
		}
		v.mu.RUnlock()
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func who(s *Schema) string {
	if s.Name == "" {
		return s.From
	}
	return fmt.Sprintf("%s %s", s.From, s.Name)
}
