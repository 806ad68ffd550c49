package host

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The catalog is the set of plugin descriptions this kernel knows. A
// first-party plugin is compiled into the runx binary, so its Info comes
// from the binary itself, lazily and in process: learning what it serves
// costs no process start, and the started process must describe itself the
// same (checked at handshake). A third-party plugin is described when first
// needed, by starting it; its description is kept in memory by the sha256
// of its pinned binary, so a restarted process is not asked twice.
type catalog struct {
	firstParty map[string]func() sdk.Info

	mu       sync.Mutex
	infos    map[string]*sdk.Info // first-party, by plugin name
	byDigest map[string]*sdk.Info // third-party, by binary sha256 hex
	schemas  map[schemaKey]*capabilitySchemas
}

func newCatalog(firstParty map[string]func() sdk.Info) *catalog {
	return &catalog{firstParty: firstParty, infos: map[string]*sdk.Info{}, byDigest: map[string]*sdk.Info{}, schemas: map[schemaKey]*capabilitySchemas{}}
}

// firstPartyInfo is the in-process description of a compiled-in plugin.
func (c *catalog) firstPartyInfo(name string) (*sdk.Info, bool) {
	fn, ok := c.firstParty[name]
	if !ok {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if info, ok := c.infos[name]; ok {
		return info, true
	}
	info := fn()
	if info.ProtocolVersion == 0 {
		info.ProtocolVersion = sdk.ProtocolVersion
	}
	c.infos[name] = &info
	return &info, true
}

func (c *catalog) names() []string {
	names := make([]string, 0, len(c.firstParty))
	for n := range c.firstParty {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// checkDescribed holds a started first-party process to the description
// compiled into this binary: the same name, version and capability ids. A
// mismatch means the process is not the plugin this runx was built with.
func checkDescribed(want, got *sdk.Info) error {
	if want.Name != got.Name || want.Version != got.Version || !slices.Equal(capabilityIDs(want), capabilityIDs(got)) {
		return hostErr(errcode.PluginDescribeMismatch, nil,
			"plugin %q described itself as %s %s serving %v, but this runx was built with %s %s serving %v; runx refuses it",
			want.Name, got.Name, got.Version, capabilityIDs(got), want.Name, want.Version, capabilityIDs(want))
	}
	return nil
}

func capabilityIDs(info *sdk.Info) []string {
	ids := make([]string, len(info.Capabilities))
	for i := range info.Capabilities {
		ids[i] = info.Capabilities[i].ID
	}
	sort.Strings(ids)
	return ids
}

// Info returns a plugin's description: a first-party one from this binary
// without starting it, a third-party one by starting (or reusing) its
// process.
func (s *Supervisor) Info(ctx context.Context, name string) (*sdk.Info, error) {
	if info, ok := s.cat.firstPartyInfo(name); ok {
		return info, nil
	}
	info, _, err := s.Describe(ctx, name)
	return info, err
}

// Capability is one capability found by a catalog lookup.
type Capability struct {
	Plugin     string
	Definition *sdk.Definition
}

// ByRole returns the capabilities that declare role: the first-party
// plugins' in name order, or, when none does, the pinned third-party
// plugins' (each described, and so started, only then). A first-party
// plugin never yields a role to a third-party one.
func (s *Supervisor) ByRole(ctx context.Context, role string) ([]Capability, error) {
	found := s.scan(func(info *sdk.Info) []Capability {
		var out []Capability
		for i := range info.Capabilities {
			if info.Capabilities[i].HasRole(role) {
				out = append(out, Capability{Plugin: info.Name, Definition: &info.Capabilities[i]})
			}
		}
		return out
	}, s.cat.names())
	if len(found) > 0 {
		return found, nil
	}
	third, err := s.thirdPartyNames()
	if err != nil {
		return nil, err
	}
	for _, name := range third {
		info, err := s.Info(ctx, name)
		if err != nil {
			return nil, err
		}
		for i := range info.Capabilities {
			if info.Capabilities[i].HasRole(role) {
				found = append(found, Capability{Plugin: name, Definition: &info.Capabilities[i]})
			}
		}
	}
	return found, nil
}

// RoleCapability is the one capability the kernel invokes for role, or a
// typed refusal naming the role when no plugin declares it.
func (s *Supervisor) RoleCapability(ctx context.Context, role string) (*Capability, error) {
	found, err := s.ByRole(ctx, role)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, hostErr(errcode.CapabilityRoleUnserved, nil, "no plugin this runx knows declares a capability with role %q", role)
	}
	return &found[0], nil
}

// Adapter returns the plugin serving a data adapter and its declaration:
// first-party plugins first, then pinned third-party ones.
func (s *Supervisor) Adapter(ctx context.Context, id string) (string, *sdk.Adapter, error) {
	match := func(info *sdk.Info) *sdk.Adapter {
		for i := range info.Adapters {
			if info.Adapters[i].ID == id {
				return &info.Adapters[i]
			}
		}
		return nil
	}
	for _, name := range s.cat.names() {
		info, _ := s.cat.firstPartyInfo(name)
		if a := match(info); a != nil {
			return name, a, nil
		}
	}
	third, err := s.thirdPartyNames()
	if err != nil {
		return "", nil, err
	}
	for _, name := range third {
		info, err := s.Info(ctx, name)
		if err != nil {
			return "", nil, err
		}
		if a := match(info); a != nil {
			return name, a, nil
		}
	}
	return "", nil, hostErr(errcode.DataAdapterNotFound, nil, "no plugin this runx knows serves data adapter %q", id)
}

// Adapters lists every adapter id the first-party plugins serve, for
// messages.
func (s *Supervisor) Adapters() []string {
	var ids []string
	for _, name := range s.cat.names() {
		info, _ := s.cat.firstPartyInfo(name)
		for _, a := range info.Adapters {
			ids = append(ids, a.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

func (s *Supervisor) scan(fn func(*sdk.Info) []Capability, names []string) []Capability {
	var out []Capability
	for _, name := range names {
		info, _ := s.cat.firstPartyInfo(name)
		out = append(out, fn(info)...)
	}
	return out
}

// thirdPartyNames are the plugins pinned in the project's lock, by name.
func (s *Supervisor) thirdPartyNames() ([]string, error) {
	if s.cfg.Discovery == nil || s.cfg.Discovery.ProjectDir == "" {
		return nil, nil
	}
	lock, err := ReadLock(s.cfg.Discovery.ProjectDir)
	if err != nil {
		return nil, err
	}
	var names []string
	for n := range lock.Plugins {
		if _, first := s.cat.firstParty[n]; !first {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// remember keeps a third-party description by its binary's digest, and
// holds a restarted process of the same binary to the same description.
func (c *catalog) remember(sum []byte, info *sdk.Info) (*sdk.Info, error) {
	key := hex.EncodeToString(sum)
	c.mu.Lock()
	defer c.mu.Unlock()
	if known, ok := c.byDigest[key]; ok {
		if err := checkDescribed(known, info); err != nil {
			return nil, err
		}
		return known, nil
	}
	c.byDigest[key] = info
	return info, nil
}

// identity names one build of a plugin, for compiled schemas: a third-party
// binary's digest, or a first-party plugin's name and version.
func identity(launch *Launch, info *sdk.Info) string {
	if launch != nil && launch.SHA256 != nil {
		return "sha256:" + hex.EncodeToString(launch.SHA256)
	}
	return fmt.Sprintf("first-party:%s@%s", info.Name, info.Version)
}

// Packet returns the plugin that describes packet id and its description:
// the first-party plugins first, then the pinned third-party ones (each
// described, and so started, only then). None describing it is no error.
func (s *Supervisor) Packet(ctx context.Context, id string) (string, *sdk.Packet, error) {
	match := func(info *sdk.Info) *sdk.Packet {
		for i := range info.Packets {
			if info.Packets[i].ID == id {
				return &info.Packets[i]
			}
		}
		return nil
	}
	for _, name := range s.cat.names() {
		info, _ := s.cat.firstPartyInfo(name)
		if p := match(info); p != nil {
			return name, p, nil
		}
	}
	third, err := s.thirdPartyNames()
	if err != nil {
		return "", nil, err
	}
	for _, name := range third {
		info, err := s.Info(ctx, name)
		if err != nil {
			return "", nil, err
		}
		if p := match(info); p != nil {
			return name, p, nil
		}
	}
	return "", nil, nil
}
